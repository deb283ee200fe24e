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

/* A decoder with no search yet, for the grammar mode: the garbage phones are added as words
   (ps_add_word) and the grammar set (ps_set_fsg, ps_set_search) after it is made, since a
   grammar's words must be in the dictionary when it is loaded. "-bestpath yes" (the default,
   said here because the grammar mode's confidence reads the utterance's word lattice).
   postspeech: "-vad_postspeech", the frames (100 a second) of silence the voice-activity
   detector waits for before it ends an utterance (PocketSphinx's default "50"). */
static inline ps_decoder_t *rb_ps_open_bare(const char *hmm, const char *dict, const char *logfn,
                                            const char *postspeech) {
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
                                   "-hmm", hmm, "-dict", dict, "-logfn", logfn,
                                   "-samprate", "16000", "-bestpath", "yes",
                                   "-vad_postspeech", postspeech, NULL);
    if (config == NULL) return NULL;
    ps_decoder_t *decoder = ps_init(config);
    cmd_ln_free_r(config);
    return decoder;
}
