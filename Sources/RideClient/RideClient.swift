// The typed HTTP client of the ride service's /v1 API (openapi.yaml): used by the role CLIs and
// by Guide's runtime. Built on AsyncHTTPClient; no other module sees HTTP.
