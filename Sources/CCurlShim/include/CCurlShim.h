// Why this shim exists: curl_easy_setopt and curl_easy_getinfo are variadic C
// functions, and Swift cannot call variadic C functions. Each wrapper here
// fixes one argument type so the compiler checks what libcurl cannot. The TLS
// part reads OpenSSL's view of each connection, whose stack and extension
// accessors are macros Swift cannot call either.
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

CURLcode CCurlShim_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode CCurlShim_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode CCurlShim_getinfo_string(CURL *handle, CURLINFO info, const char **value);

// What the TLS handshakes of one handle's new connections showed. The shim
// fills it from OpenSSL's info callback; the caller clears it before each
// transfer (CCurlShim_tls_watch_clear) and frees it with the handle.
typedef struct CCurlShim_TLSWatch {
    // 1 once a new connection's handshake has read the server's answer (its hello,
    // or an alert): a failed handshake without one was reset or closed (the network's failure).
    int heard_server;
    // 1 once a new connection's handshake completed: the fields below are its.
    int handshake_done;
    // "TLSv1.2", "TLSv1.3" (static strings).
    const char *version;
    // The negotiated suite's IANA name ("TLS_AES_128_GCM_SHA256"; static).
    const char *cipher;
    // 1 for a TLS 1.3 suite or an ECDHE key exchange.
    int forward_secret;
    // The verified chain, leaf first, root last (STACK_OF(X509) *, owned).
    void *chain;
} CCurlShim_TLSWatch;

// One certificate of a verified chain, as iOS's rules read it.
typedef struct CCurlShim_Certificate {
    // "RSA", "ECDSA", "Ed25519", or OpenSSL's short name of the key's type (static).
    const char *key_type;
    int key_bits;
    // OpenSSL's long name of the signature algorithm ("sha256WithRSAEncryption"; static).
    const char *signature;
    // 1 when the signature's digest is SHA-224, -256, -384 or -512.
    int signature_sha2;
    // notBefore and notAfter, seconds since 1970 (UTC).
    long long not_before;
    long long not_after;
    // The subject, one line ("CN=media.example.com"), truncated to fit.
    char subject[256];
    // subjectAltName entries, each "DNS:name" or "IP:address", joined by '\n'
    // (malloc'd; NULL without the extension). Freed by CCurlShim_certificate_free.
    char *subject_alt_names;
    // 1 when the certificate has an extendedKeyUsage extension.
    int has_extended_key_usage;
    // Its purposes' short names ("serverAuth,clientAuth"), truncated to fit.
    char extended_key_usage[256];
    // Embedded SCTs (the CT precertificate SCT list extension); -1 when unreadable.
    int scts;
} CCurlShim_Certificate;

// Watches every new connection of `handle` (CURLOPT_SSL_CTX_FUNCTION); *watch
// must outlive the handle's transfers.
CURLcode CCurlShim_watch_tls(CURL *handle, CCurlShim_TLSWatch *watch);
// Forgets the last handshake (frees its chain).
void CCurlShim_tls_watch_clear(CCurlShim_TLSWatch *watch);
// Certificates in the last handshake's verified chain (0 when none).
int CCurlShim_tls_chain_length(const CCurlShim_TLSWatch *watch);
// Fills *out with the chain's certificate at `index` (0: the leaf); returns 0 on success.
int CCurlShim_tls_certificate(const CCurlShim_TLSWatch *watch, int index, CCurlShim_Certificate *out);
void CCurlShim_certificate_free(CCurlShim_Certificate *certificate);
// 1 when the leaf names `host` in its subjectAltName (a DNS name, wildcards as
// RFC 6125 allows, or an IP address for an address), never by its common name.
int CCurlShim_tls_leaf_names(const CCurlShim_TLSWatch *watch, const char *host);
// The SHA-256 of the chain's root (its last certificate) in DER; returns 0 on success.
int CCurlShim_tls_root_sha256(const CCurlShim_TLSWatch *watch, unsigned char digest[32]);
// OpenSSL's subject-name hash of the root, as `openssl rehash` names its files.
unsigned long CCurlShim_tls_root_subject_hash(const CCurlShim_TLSWatch *watch);

#endif
