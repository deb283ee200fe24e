#include <pocketsphinx.h>

/* cmd_ln_init is variadic, which Swift cannot call: the decoder is made here.
   hmm: the acoustic model directory; dict: the pronunciation dictionary; search: "-kws" with a
   keyphrase file (one "phrase /threshold/" a line) for keyword spotting, or "-lm" with the
   model's general English language model (a full decode; commands are then found in its
   words); logfn: where the library's log goes (/dev/null). */
static inline ps_decoder_t *rb_ps_open(const char *hmm, const char *dict, const char *search, const char *file,
                                       const char *logfn) {
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
                                   "-hmm", hmm, "-dict", dict, search, file, "-logfn", logfn,
                                   "-samprate", "16000", NULL);
    if (config == NULL) return NULL;
    ps_decoder_t *decoder = ps_init(config);
    cmd_ln_free_r(config);
    return decoder;
}
