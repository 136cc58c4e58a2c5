// The few OpenSSL functions Sluice's own transport calls, declared as the types of pointers to them: the library is
// loaded at run time with dlopen (libssl.so.3, else libssl.so.1.1, and the libcrypto beside it) and each symbol looked
// up with dlsym, so the package builds without OpenSSL's headers and links nothing of it. Only what is declared here
// is used; each signature is the one OpenSSL 1.1.1 and 3 document for it, and the opaque types stay opaque.
#ifndef CSLUICETLS_H
#define CSLUICETLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sluice_ssl_method SluiceSSLMethod;
typedef struct sluice_ssl_ctx SluiceSSLContext;
typedef struct sluice_ssl SluiceSSL;
typedef struct sluice_ssl_session SluiceSSLSession;
typedef struct sluice_bio SluiceBIO;
typedef struct sluice_bio_method SluiceBIOMethod;
typedef struct sluice_x509 SluiceX509;
typedef struct sluice_x509_store SluiceX509Store;
typedef struct sluice_x509_pubkey SluiceX509PublicKey;
typedef struct sluice_x509_verify_param SluiceX509VerifyParam;
typedef struct sluice_evp_pkey SluiceEVPKey;
typedef struct sluice_stack SluiceStack;
typedef struct sluice_asn1_string SluiceASN1String;

/// A subject alternative name, laid out as OpenSSL's public `GENERAL_NAME`: a type, then a pointer.
typedef struct {
    int type;
    SluiceASN1String *value;
} SluiceGeneralName;

// Constants from ssl.h, x509v3.h and tls1.h, with OpenSSL's names.
enum {
    SLUICE_SSL_ERROR_NONE = 0,
    SLUICE_SSL_ERROR_SSL = 1,
    SLUICE_SSL_ERROR_WANT_READ = 2,
    SLUICE_SSL_ERROR_WANT_WRITE = 3,
    SLUICE_SSL_ERROR_SYSCALL = 5,
    SLUICE_SSL_ERROR_ZERO_RETURN = 6,
    SLUICE_SSL_VERIFY_NONE = 0,
    SLUICE_SSL_VERIFY_PEER = 1,
    SLUICE_SSL_CTRL_MODE = 33,
    SLUICE_SSL_CTRL_SET_SESS_CACHE_MODE = 44,
    SLUICE_SSL_CTRL_SET_TLSEXT_HOSTNAME = 55,
    SLUICE_SSL_CTRL_SET_MIN_PROTO_VERSION = 123,
    SLUICE_SSL_CTRL_EXTRA_CHAIN_CERT = 14,
    SLUICE_SSL_CTRL_SESS_NUMBER = 20,
    SLUICE_SSL_MODE_ENABLE_PARTIAL_WRITE = 1,
    SLUICE_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = 2,
    SLUICE_SSL_SESS_CACHE_CLIENT = 1,
    SLUICE_SSL_SESS_CACHE_NO_INTERNAL_STORE = 0x0200,
    SLUICE_TLSEXT_NAMETYPE_HOST_NAME = 0,
    SLUICE_TLS1_2_VERSION = 0x0303,
    SLUICE_TLS1_3_VERSION = 0x0304,
    SLUICE_NID_SUBJECT_ALT_NAME = 85,
    SLUICE_GEN_DNS = 2,
    SLUICE_GEN_IPADD = 7,
};

/// SSL_OP_NO_RENEGOTIATION, a 64-bit option.
static const uint64_t SLUICE_SSL_OP_NO_RENEGOTIATION = 1ULL << 30;

// libssl
typedef const SluiceSSLMethod *(*SluiceTLSClientMethod)(void);
typedef SluiceSSLContext *(*SluiceSSLContextNew)(const SluiceSSLMethod *method);
typedef void (*SluiceSSLContextFree)(SluiceSSLContext *context);
typedef int (*SluiceSSLContextSetDefaultVerifyPaths)(SluiceSSLContext *context);
typedef SluiceX509Store *(*SluiceSSLContextGetCertStore)(const SluiceSSLContext *context);
typedef void (*SluiceSSLContextSetVerify)(SluiceSSLContext *context, int mode, void *callback);
typedef long (*SluiceSSLContextControl)(SluiceSSLContext *context, int command, long argument, void *pointer);
typedef uint64_t (*SluiceSSLContextSetOptions)(SluiceSSLContext *context, uint64_t options);
typedef int (*SluiceSSLContextSetALPNProtocols)(SluiceSSLContext *context, const unsigned char *protocols,
                                                unsigned int length);
typedef int (*SluiceSSLSetALPNProtocols)(SluiceSSL *ssl, const unsigned char *protocols, unsigned int length);
typedef int (*SluiceSSLContextUseCertificate)(SluiceSSLContext *context, SluiceX509 *certificate);
typedef int (*SluiceSSLContextUsePrivateKey)(SluiceSSLContext *context, SluiceEVPKey *key);
typedef int (*SluiceSSLContextCheckPrivateKey)(const SluiceSSLContext *context);
typedef SluiceSSL *(*SluiceSSLNew)(SluiceSSLContext *context);
typedef void (*SluiceSSLFree)(SluiceSSL *ssl);
typedef void (*SluiceSSLSetBIO)(SluiceSSL *ssl, SluiceBIO *readBIO, SluiceBIO *writeBIO);
typedef void (*SluiceSSLSetConnectState)(SluiceSSL *ssl);
typedef int (*SluiceSSLDoHandshake)(SluiceSSL *ssl);
typedef int (*SluiceSSLRead)(SluiceSSL *ssl, void *buffer, int count);
typedef int (*SluiceSSLWrite)(SluiceSSL *ssl, const void *buffer, int count);
typedef int (*SluiceSSLGetError)(const SluiceSSL *ssl, int result);
typedef int (*SluiceSSLShutdown)(SluiceSSL *ssl);
typedef int (*SluiceSSLPending)(const SluiceSSL *ssl);
typedef long (*SluiceSSLControl)(SluiceSSL *ssl, int command, long argument, void *pointer);
typedef int (*SluiceSSLSet1Host)(SluiceSSL *ssl, const char *hostname);
typedef SluiceX509VerifyParam *(*SluiceSSLGet0Param)(SluiceSSL *ssl);
typedef long (*SluiceSSLGetVerifyResult)(const SluiceSSL *ssl);
typedef void (*SluiceSSLGet0ALPNSelected)(const SluiceSSL *ssl, const unsigned char **data, unsigned int *length);
typedef SluiceStack *(*SluiceSSLGet0VerifiedChain)(const SluiceSSL *ssl);
typedef SluiceX509 *(*SluiceSSLGet1PeerCertificate)(const SluiceSSL *ssl);
typedef SluiceStack *(*SluiceSSLGetPeerCertChain)(const SluiceSSL *ssl);
typedef const char *(*SluiceSSLGetVersion)(const SluiceSSL *ssl);
typedef SluiceSSLSession *(*SluiceSSLGet1Session)(SluiceSSL *ssl);
typedef int (*SluiceSSLSetSession)(SluiceSSL *ssl, SluiceSSLSession *session);
typedef int (*SluiceSSLSessionReused)(const SluiceSSL *ssl);
typedef void (*SluiceSSLSessionFree)(SluiceSSLSession *session);
typedef int (*SluiceSSLSessionIsResumable)(const SluiceSSLSession *session);

// libcrypto
typedef const SluiceBIOMethod *(*SluiceBIOSMem)(void);
typedef SluiceBIO *(*SluiceBIONew)(const SluiceBIOMethod *method);
typedef SluiceBIO *(*SluiceBIONewMemoryBuffer)(const void *bytes, int count);
typedef int (*SluiceBIORead)(SluiceBIO *bio, void *buffer, int count);
typedef int (*SluiceBIOWrite)(SluiceBIO *bio, const void *buffer, int count);
typedef size_t (*SluiceBIOControlPending)(SluiceBIO *bio);
typedef int (*SluiceBIOFree)(SluiceBIO *bio);
typedef unsigned long (*SluiceERRGetError)(void);
typedef void (*SluiceERRErrorStringN)(unsigned long code, char *buffer, size_t length);
typedef void (*SluiceERRClearError)(void);
typedef const char *(*SluiceX509VerifyCertErrorString)(long code);
typedef SluiceX509 *(*SluicePEMReadBIOX509)(SluiceBIO *bio, SluiceX509 **into, void *callback, void *context);
typedef SluiceEVPKey *(*SluicePEMReadBIOPrivateKey)(SluiceBIO *bio, SluiceEVPKey **into, void *callback,
                                                    void *context);
typedef int (*SluiceX509StoreAddCert)(SluiceX509Store *store, SluiceX509 *certificate);
typedef void (*SluiceX509Free)(SluiceX509 *certificate);
typedef void (*SluiceEVPKeyFree)(SluiceEVPKey *key);
typedef int (*SluiceX509VerifyParamSet1IP)(SluiceX509VerifyParam *parameters, const unsigned char *address,
                                           size_t length);
typedef SluiceX509PublicKey *(*SluiceX509GetX509PublicKey)(const SluiceX509 *certificate);
typedef int (*SluiceI2DX509PublicKey)(const SluiceX509PublicKey *key, unsigned char **out);
typedef unsigned char *(*SluiceSHA256)(const unsigned char *bytes, size_t count, unsigned char *digest);
typedef int (*SluiceStackCount)(const SluiceStack *stack);
typedef void *(*SluiceStackValue)(const SluiceStack *stack, int index);
typedef void *(*SluiceX509GetExtensionD2I)(const SluiceX509 *certificate, int nid, int *critical, int *index);
typedef void (*SluiceGeneralNamesFree)(SluiceStack *names);
typedef const unsigned char *(*SluiceASN1StringGet0Data)(const SluiceASN1String *string);
typedef int (*SluiceASN1StringLength)(const SluiceASN1String *string);

#endif
