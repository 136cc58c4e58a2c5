// The few functions of the system's zlib, brotli decoder and zstd that Sluice's own transport calls to decode
// compressed response bodies (and zlib's to compress WebSocket messages), declared as the types of pointers to them, with the two structures they share with the
// caller laid out as the libraries document them. Each library is loaded at run time with dlopen (libz.so.1,
// libbrotlidec.so.1, libzstd.so.1) and each symbol looked up with dlsym, so the package builds without their headers
// and links nothing of them. Only what is declared here is used; the decoders' own state stays opaque.
#ifndef CSLUICECOMPRESSION_H
#define CSLUICECOMPRESSION_H

#include <stddef.h>
#include <stdint.h>

// zlib 1.2 and later: z_stream as zlib.h lays it out (uInt is unsigned int, uLong unsigned long).
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} SluiceZStream;

// Constants from zlib.h, with zlib's names.
enum {
    SLUICE_Z_OK = 0,
    SLUICE_Z_STREAM_END = 1,
    SLUICE_Z_NEED_DICT = 2,
    SLUICE_Z_BUF_ERROR = -5,
    SLUICE_Z_NO_FLUSH = 0,
    SLUICE_Z_SYNC_FLUSH = 2,
    SLUICE_Z_DEFLATED = 8,
    SLUICE_Z_DEFAULT_COMPRESSION = -1,
    SLUICE_Z_DEFAULT_STRATEGY = 0,
};

typedef const char *(*SluiceZlibVersion)(void);
typedef int (*SluiceInflateInit2)(SluiceZStream *stream, int windowBits, const char *version, int streamSize);
typedef int (*SluiceInflate)(SluiceZStream *stream, int flush);
typedef int (*SluiceInflateReset)(SluiceZStream *stream);
typedef int (*SluiceInflateEnd)(SluiceZStream *stream);
// Compression, for WebSocket messages under permessage-deflate.
typedef int (*SluiceDeflateInit2)(SluiceZStream *stream, int level, int method, int windowBits, int memLevel,
                                  int strategy, const char *version, int streamSize);
typedef int (*SluiceDeflate)(SluiceZStream *stream, int flush);
typedef int (*SluiceDeflateReset)(SluiceZStream *stream);
typedef int (*SluiceDeflateEnd)(SluiceZStream *stream);

// The brotli decoder, libbrotlidec 1.0 and later: BrotliDecoderResult's values, with brotli's names.
typedef struct sluice_brotli_decoder SluiceBrotliDecoder;
enum {
    SLUICE_BROTLI_DECODER_RESULT_ERROR = 0,
    SLUICE_BROTLI_DECODER_RESULT_SUCCESS = 1,
    SLUICE_BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT = 2,
    SLUICE_BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT = 3,
};

typedef SluiceBrotliDecoder *(*SluiceBrotliDecoderCreateInstance)(void *alloc, void *free, void *opaque);
typedef void (*SluiceBrotliDecoderDestroyInstance)(SluiceBrotliDecoder *decoder);
typedef int (*SluiceBrotliDecoderDecompressStream)(SluiceBrotliDecoder *decoder, size_t *availableIn,
                                                   const uint8_t **nextIn, size_t *availableOut, uint8_t **nextOut,
                                                   size_t *totalOut);
typedef int (*SluiceBrotliDecoderGetErrorCode)(const SluiceBrotliDecoder *decoder);
typedef const char *(*SluiceBrotliDecoderErrorString)(int code);

// zstd 1.4 and later: ZSTD_inBuffer and ZSTD_outBuffer as zstd.h lays them out, and ZSTD_d_windowLogMax.
typedef struct sluice_zstd_dctx SluiceZstdDecoder;
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} SluiceZstdInBuffer;
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} SluiceZstdOutBuffer;
enum {
    SLUICE_ZSTD_D_WINDOWLOGMAX = 100,
};

typedef SluiceZstdDecoder *(*SluiceZstdCreateDCtx)(void);
typedef size_t (*SluiceZstdFreeDCtx)(SluiceZstdDecoder *decoder);
typedef size_t (*SluiceZstdDCtxSetParameter)(SluiceZstdDecoder *decoder, int parameter, int value);
typedef size_t (*SluiceZstdDecompressStream)(SluiceZstdDecoder *decoder, SluiceZstdOutBuffer *output,
                                             SluiceZstdInBuffer *input);
typedef unsigned (*SluiceZstdIsError)(size_t code);
typedef const char *(*SluiceZstdGetErrorName)(size_t code);

#endif
