// Every suite that needs the server or a database also tags itself and waits `eventually`: the
// light fixtures come with this module, so those suites import one module, as before the split.
@_exported import TestSupport
