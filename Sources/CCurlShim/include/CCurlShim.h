// Why this shim exists: curl_easy_setopt and curl_easy_getinfo are variadic C
// functions, and Swift cannot call variadic C functions. Each wrapper here
// fixes one argument type so the compiler checks what libcurl cannot.
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <curl/curl.h>

CURLcode CCurlShim_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode CCurlShim_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode CCurlShim_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode CCurlShim_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode CCurlShim_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode CCurlShim_setopt_write_function(CURL *handle, curl_write_callback callback);
CURLcode CCurlShim_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback);
CURLcode CCurlShim_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback);

// Sets *heard to 1 on every new connection whose TLS handshake reads the
// server's hello (the caller resets it before each transfer); *heard must
// outlive the handle's transfers.
CURLcode CCurlShim_watch_server_hello(CURL *handle, int *heard);

CURLcode CCurlShim_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode CCurlShim_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode CCurlShim_getinfo_string(CURL *handle, CURLINFO info, const char **value);

#endif
