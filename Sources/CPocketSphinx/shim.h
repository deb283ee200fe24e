#include <pocketsphinx.h>

/* cmd_ln_init is variadic, which Swift cannot call: the keyword-spotting decoder is made here.
   hmm: the acoustic model directory; dict: the pronunciation dictionary; kws: the keyphrase file
   (one "phrase /threshold/" a line); logfn: where the library's log goes (/dev/null). */
static inline ps_decoder_t *rb_ps_open_kws(const char *hmm, const char *dict, const char *kws, const char *logfn) {
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
                                   "-hmm", hmm, "-dict", dict, "-kws", kws, "-logfn", logfn,
                                   "-samprate", "16000", NULL);
    if (config == NULL) return NULL;
    ps_decoder_t *decoder = ps_init(config);
    cmd_ln_free_r(config);
    return decoder;
}

/* The same decoder with the model's general English language model instead of keyphrases
   (a full decode of each stretch of speech; commands are then found in its words). */
static inline ps_decoder_t *rb_ps_open_lm(const char *hmm, const char *dict, const char *lm, const char *logfn) {
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
                                   "-hmm", hmm, "-dict", dict, "-lm", lm, "-logfn", logfn,
                                   "-samprate", "16000", NULL);
    if (config == NULL) return NULL;
    ps_decoder_t *decoder = ps_init(config);
    cmd_ln_free_r(config);
    return decoder;
}
