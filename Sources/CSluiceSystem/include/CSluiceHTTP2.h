// The nghttp2 functions Sluice's own transport calls for HTTP/2, declared as the types of pointers to them, and the few
// structures it reads or fills, laid out as nghttp2's public header lays them out: the library (libnghttp2.so.14,
// which libcurl already loads into a FoundationNetworking process) is loaded at run time with dlopen and each symbol
// looked up with dlsym, so the package builds without nghttp2's headers and links nothing of it. Only the first
// version of its API is used (Debian 12 ships 1.52.0): `mem_recv`, `mem_send`, `nghttp2_data_provider`. The session,
// its callbacks and its options stay opaque.
#ifndef CSLUICEHTTP2_H
#define CSLUICEHTTP2_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sluice_nghttp2_session SluiceH2Session;
typedef struct sluice_nghttp2_session_callbacks SluiceH2Callbacks;
typedef struct sluice_nghttp2_option SluiceH2Option;

/// A header field to send: `nghttp2_nv`.
typedef struct {
    uint8_t *name;
    uint8_t *value;
    size_t namelen;
    size_t valuelen;
    uint8_t flags;
} SluiceH2NameValue;

/// The header every frame begins with: `nghttp2_frame_hd`, the first member of each of nghttp2's frame structures, so
/// that a pointer to any frame is one to its header.
typedef struct {
    size_t length;
    int32_t stream_id;
    uint8_t type;
    uint8_t flags;
    uint8_t reserved;
} SluiceH2FrameHeader;

/// A GOAWAY frame: `nghttp2_goaway`.
typedef struct {
    SluiceH2FrameHeader hd;
    int32_t last_stream_id;
    uint32_t error_code;
    uint8_t *opaque_data;
    size_t opaque_data_len;
    uint8_t reserved;
} SluiceH2GoAway;

/// A RST_STREAM frame: `nghttp2_rst_stream`.
typedef struct {
    SluiceH2FrameHeader hd;
    uint32_t error_code;
} SluiceH2ResetStream;

/// One setting to send: `nghttp2_settings_entry`.
typedef struct {
    int32_t settings_id;
    uint32_t value;
} SluiceH2Setting;

/// Where a request body's bytes come from: `nghttp2_data_source`.
typedef union {
    int fd;
    void *ptr;
} SluiceH2DataSource;

/// Fills `buffer` with up to `length` bytes of a stream's body: `nghttp2_data_source_read_callback`.
typedef ssize_t (*SluiceH2DataSourceRead)(SluiceH2Session *session, int32_t stream_id, uint8_t *buffer, size_t length,
                                          uint32_t *data_flags, SluiceH2DataSource *source, void *user_data);

/// A request body: `nghttp2_data_provider`.
typedef struct {
    SluiceH2DataSource source;
    SluiceH2DataSourceRead read_callback;
} SluiceH2DataProvider;

// The callbacks, as nghttp2 declares them; a frame is passed as a pointer to its header.
typedef int (*SluiceH2OnFrameReceive)(SluiceH2Session *session, const SluiceH2FrameHeader *frame, void *user_data);
typedef int (*SluiceH2OnBeginHeaders)(SluiceH2Session *session, const SluiceH2FrameHeader *frame, void *user_data);
typedef int (*SluiceH2OnHeader)(SluiceH2Session *session, const SluiceH2FrameHeader *frame, const uint8_t *name,
                                size_t name_length, const uint8_t *value, size_t value_length, uint8_t flags,
                                void *user_data);
typedef int (*SluiceH2OnDataChunk)(SluiceH2Session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
                                   size_t length, void *user_data);
typedef int (*SluiceH2OnStreamClose)(SluiceH2Session *session, int32_t stream_id, uint32_t error_code,
                                     void *user_data);
typedef int (*SluiceH2OnError)(SluiceH2Session *session, int code, const char *message, size_t length,
                               void *user_data);

// Constants from nghttp2.h and RFC 9113, with nghttp2's names.
enum {
    SLUICE_NGHTTP2_DATA = 0,
    SLUICE_NGHTTP2_HEADERS = 1,
    SLUICE_NGHTTP2_RST_STREAM = 3,
    SLUICE_NGHTTP2_SETTINGS = 4,
    SLUICE_NGHTTP2_PUSH_PROMISE = 5,
    SLUICE_NGHTTP2_PING = 6,
    SLUICE_NGHTTP2_GOAWAY = 7,
    SLUICE_NGHTTP2_FLAG_NONE = 0,
    SLUICE_NGHTTP2_FLAG_END_STREAM = 0x01,
    SLUICE_NGHTTP2_FLAG_ACK = 0x01,
    SLUICE_NGHTTP2_SETTINGS_ENABLE_PUSH = 0x02,
    SLUICE_NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS = 0x03,
    SLUICE_NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE = 0x04,
    SLUICE_NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE = 0x06,
    SLUICE_NGHTTP2_NV_FLAG_NONE = 0,
    SLUICE_NGHTTP2_DATA_FLAG_EOF = 0x01,
    SLUICE_NGHTTP2_NO_ERROR = 0,
    SLUICE_NGHTTP2_PROTOCOL_ERROR = 1,
    SLUICE_NGHTTP2_INTERNAL_ERROR = 2,
    SLUICE_NGHTTP2_REFUSED_STREAM = 7,
    SLUICE_NGHTTP2_CANCEL = 8,
    SLUICE_NGHTTP2_ERR_DEFERRED = -508,
    SLUICE_NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE = -521,
    SLUICE_NGHTTP2_ERR_CALLBACK_FAILURE = -902,
};

// libnghttp2
typedef int (*SluiceH2CallbacksNew)(SluiceH2Callbacks **callbacks);
typedef void (*SluiceH2CallbacksDelete)(SluiceH2Callbacks *callbacks);
typedef void (*SluiceH2SetOnFrameReceive)(SluiceH2Callbacks *callbacks, SluiceH2OnFrameReceive callback);
typedef void (*SluiceH2SetOnBeginHeaders)(SluiceH2Callbacks *callbacks, SluiceH2OnBeginHeaders callback);
typedef void (*SluiceH2SetOnHeader)(SluiceH2Callbacks *callbacks, SluiceH2OnHeader callback);
typedef void (*SluiceH2SetOnDataChunk)(SluiceH2Callbacks *callbacks, SluiceH2OnDataChunk callback);
typedef void (*SluiceH2SetOnStreamClose)(SluiceH2Callbacks *callbacks, SluiceH2OnStreamClose callback);
typedef void (*SluiceH2SetOnError)(SluiceH2Callbacks *callbacks, SluiceH2OnError callback);
typedef int (*SluiceH2OptionNew)(SluiceH2Option **option);
typedef void (*SluiceH2OptionDelete)(SluiceH2Option *option);
typedef void (*SluiceH2OptionSetNoAutoWindowUpdate)(SluiceH2Option *option, int value);
typedef void (*SluiceH2OptionSetPeerMaxConcurrentStreams)(SluiceH2Option *option, uint32_t value);
typedef int (*SluiceH2SessionClientNew)(SluiceH2Session **session, const SluiceH2Callbacks *callbacks,
                                        void *user_data, const SluiceH2Option *option);
typedef void (*SluiceH2SessionDelete)(SluiceH2Session *session);
typedef ssize_t (*SluiceH2SessionReceive)(SluiceH2Session *session, const uint8_t *bytes, size_t length);
typedef ssize_t (*SluiceH2SessionSend)(SluiceH2Session *session, const uint8_t **bytes);
typedef int (*SluiceH2SessionWant)(SluiceH2Session *session);
typedef int (*SluiceH2SubmitSettings)(SluiceH2Session *session, uint8_t flags, const SluiceH2Setting *settings,
                                      size_t count);
typedef int32_t (*SluiceH2SubmitRequest)(SluiceH2Session *session, const void *priority,
                                         const SluiceH2NameValue *fields, size_t count,
                                         const SluiceH2DataProvider *body, void *stream_user_data);
typedef int (*SluiceH2SubmitResetStream)(SluiceH2Session *session, uint8_t flags, int32_t stream_id,
                                         uint32_t error_code);
typedef int (*SluiceH2SubmitGoAway)(SluiceH2Session *session, uint8_t flags, int32_t last_stream_id,
                                    uint32_t error_code, const uint8_t *data, size_t length);
typedef int (*SluiceH2SessionConsume)(SluiceH2Session *session, int32_t stream_id, size_t count);
typedef int (*SluiceH2SessionResumeData)(SluiceH2Session *session, int32_t stream_id);
typedef uint32_t (*SluiceH2SessionGetRemoteSettings)(SluiceH2Session *session, int setting);
typedef const char *(*SluiceH2StringForError)(int code);
typedef int (*SluiceH2SubmitWindowUpdate)(SluiceH2Session *session, uint8_t flags, int32_t stream_id,
                                          int32_t increment);
typedef int (*SluiceH2SubmitPing)(SluiceH2Session *session, uint8_t flags, const uint8_t *opaque_data);

#endif
