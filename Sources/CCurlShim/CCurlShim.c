#include "CCurlShim.h"

#include <openssl/ssl.h>
#include <pthread.h>

CURLcode CCurlShim_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode CCurlShim_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode CCurlShim_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

CURLcode CCurlShim_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CCurlShim_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CCurlShim_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// The TLS handshake's state, for classifying a failed connect (SPEC 3): a
// connection reset or closed before the server's hello is the network's
// failure, not the certificate's. libcurl makes an SSL_CTX per connection and
// hands it to CURLOPT_SSL_CTX_FUNCTION; an info callback on it marks the flag
// once the client has read the server's hello.
static int server_hello_index = -1;
static pthread_once_t server_hello_once = PTHREAD_ONCE_INIT;

static void make_server_hello_index(void) {
    server_hello_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

static void note_server_hello(const SSL *ssl, int where, int ret) {
    (void)ret;
    if (!(where & SSL_CB_LOOP) || SSL_get_state(ssl) != TLS_ST_CR_SRVR_HELLO) return;
    int *heard = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), server_hello_index);
    if (heard) *heard = 1;
}

static CURLcode watch_context(CURL *handle, void *context, void *heard) {
    (void)handle;
    if (server_hello_index >= 0 && SSL_CTX_set_ex_data((SSL_CTX *)context, server_hello_index, heard) == 1) {
        SSL_CTX_set_info_callback((SSL_CTX *)context, note_server_hello);
    }
    return CURLE_OK;
}

CURLcode CCurlShim_watch_server_hello(CURL *handle, int *heard) {
    pthread_once(&server_hello_once, make_server_hello_index);
    if (server_hello_index < 0) return CURLE_FAILED_INIT;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, watch_context);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)heard);
}
