// FFmpeg, opened on the first video or audio file, not linked: its sixty-odd
// libraries would double the worker's start-up and resident memory for every
// run, and most runs decode pictures alone. Its functions are called through
// `ff`, under their own names (the macros below).
#ifndef NOTTI_DECODE_FFMPEG_H
#define NOTTI_DECODE_FFMPEG_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

#define FFMPEG_FUNCTIONS(X) \
    X(avformat, avformat_open_input) X(avformat, avformat_find_stream_info) X(avformat, avformat_close_input) \
    X(avformat, avformat_index_get_entries_count) X(avformat, av_read_frame) X(avformat, av_seek_frame) \
    X(avformat, avformat_alloc_output_context2) X(avformat, avformat_new_stream) X(avformat, avformat_write_header) \
    X(avformat, av_interleaved_write_frame) X(avformat, av_write_trailer) X(avformat, avformat_free_context) \
    X(avformat, avio_alloc_context) X(avformat, avio_flush) X(avformat, avio_context_free) \
    X(avformat, avformat_alloc_context) \
    X(avcodec, avcodec_get_name) X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_parameters_to_context) X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, avcodec_parameters_copy) X(avcodec, avcodec_open2) X(avcodec, avcodec_send_packet) \
    X(avcodec, avcodec_receive_frame) X(avcodec, avcodec_send_frame) X(avcodec, avcodec_receive_packet) \
    X(avcodec, avcodec_free_context) X(avcodec, av_packet_alloc) X(avcodec, av_packet_unref) X(avcodec, av_packet_free) \
    X(avcodec, av_packet_rescale_ts) \
    X(avutil, av_dict_get) X(avutil, av_dict_set) X(avutil, av_dict_free) X(avutil, av_frame_alloc) X(avutil, av_frame_free) \
    X(avutil, av_frame_get_buffer) X(avutil, av_frame_make_writable) X(avutil, av_strerror) X(avutil, av_log_set_level) \
    X(avutil, av_channel_layout_default) X(avutil, av_channel_layout_copy) X(avutil, av_channel_layout_uninit) \
    X(avutil, av_rescale_q) X(avutil, av_opt_set) X(avutil, av_malloc) X(avutil, av_realloc) X(avutil, av_freep) \
    X(swresample, swr_alloc_set_opts2) X(swresample, swr_init) X(swresample, swr_convert) X(swresample, swr_free) \
    X(swresample, swr_get_delay)

#define FFMPEG_MEMBER(library, name) __typeof__(name) *name;
extern struct FFmpeg { FFMPEG_FUNCTIONS(FFMPEG_MEMBER) } ff;

/// Opens FFmpeg's libraries, once; 1 when every function is there.
int ffmpeg_loaded(void);

/// `avformat_open_input` of `length` bytes in memory (the sandboxed child's mapped file: it opens nothing),
/// read and sought as a file is, restricted to the containers phones play and the decoders of the codecs
/// phones play (`format_whitelist`, `codec_whitelist`): hostile bytes reach no other demuxer or decoder of
/// FFmpeg's hundreds. Returns FFmpeg's code. Close with `ffmpeg_close_memory`.
int ffmpeg_open_memory(AVFormatContext **context, const unsigned char *bytes, size_t length);
void ffmpeg_close_memory(AVFormatContext **context);

/// 1 when `codec` is one of the decoders `ffmpeg_open_memory` allows.
int ffmpeg_decoder_allowed(const AVCodec *codec);

/// `ffmpeg_open_memory` and then its streams read (`avformat_find_stream_info`): NULL when both worked,
/// else why in words (`*context` is closed then). For `fix` and the poster, which answer in words.
const char *ffmpeg_open_streams(AVFormatContext **context, const unsigned char *bytes, size_t length);

/// Gives the muxer `out` an output in memory, sought and read back as a file is (the MP4 muxer's faststart
/// pass opens its output again, through `io_open`, to move the index to the front): a sandboxed child has no
/// file to open. FFmpeg's code. `ffmpeg_end_output` writes the bytes to `fd` (none when `fd` < 0) and frees
/// the output: 0 when they were written whole.
int ffmpeg_output_in_memory(AVFormatContext *out);
int ffmpeg_end_output(AVFormatContext *out, int fd);

/// The first stream of `type` that is not a cover picture (an MP3's or M4A's art is a "video"
/// stream of one picture, not the media); -1 when none.
int ffmpeg_stream_of(const AVFormatContext *context, enum AVMediaType type);

/// Decodes into `frame` the first frame of stream `index`, read from the file's start with an
/// allowed decoder on one thread (the same frame every run): 1 when one decoded, 0 when none did,
/// -1 when there is no allowed decoder for its codec.
int ffmpeg_first_frame(AVFormatContext *context, int index, AVFrame *frame);

// ffmpeg.c, which fills `ff`, needs the real names.
#ifndef FFMPEG_NO_RENAMES
#define avformat_open_input ff.avformat_open_input
#define avformat_find_stream_info ff.avformat_find_stream_info
#define avformat_close_input ff.avformat_close_input
#define avformat_index_get_entries_count ff.avformat_index_get_entries_count
#define av_read_frame ff.av_read_frame
#define av_seek_frame ff.av_seek_frame
#define avformat_alloc_output_context2 ff.avformat_alloc_output_context2
#define avformat_new_stream ff.avformat_new_stream
#define avformat_write_header ff.avformat_write_header
#define av_interleaved_write_frame ff.av_interleaved_write_frame
#define av_write_trailer ff.av_write_trailer
#define avformat_free_context ff.avformat_free_context
#define avio_alloc_context ff.avio_alloc_context
#define avio_flush ff.avio_flush
#define avio_context_free ff.avio_context_free
#define avformat_alloc_context ff.avformat_alloc_context
#define av_malloc ff.av_malloc
#define av_realloc ff.av_realloc
#define av_freep ff.av_freep
#define avcodec_get_name ff.avcodec_get_name
#define avcodec_find_decoder ff.avcodec_find_decoder
#define avcodec_find_encoder_by_name ff.avcodec_find_encoder_by_name
#define avcodec_alloc_context3 ff.avcodec_alloc_context3
#define avcodec_parameters_to_context ff.avcodec_parameters_to_context
#define avcodec_parameters_from_context ff.avcodec_parameters_from_context
#define avcodec_parameters_copy ff.avcodec_parameters_copy
#define avcodec_open2 ff.avcodec_open2
#define avcodec_send_packet ff.avcodec_send_packet
#define avcodec_receive_frame ff.avcodec_receive_frame
#define avcodec_send_frame ff.avcodec_send_frame
#define avcodec_receive_packet ff.avcodec_receive_packet
#define avcodec_free_context ff.avcodec_free_context
#define av_packet_alloc ff.av_packet_alloc
#define av_packet_unref ff.av_packet_unref
#define av_packet_free ff.av_packet_free
#define av_packet_rescale_ts ff.av_packet_rescale_ts
#define av_dict_get ff.av_dict_get
#define av_dict_set ff.av_dict_set
#define av_dict_free ff.av_dict_free
#define av_frame_alloc ff.av_frame_alloc
#define av_frame_free ff.av_frame_free
#define av_frame_get_buffer ff.av_frame_get_buffer
#define av_frame_make_writable ff.av_frame_make_writable
#define av_strerror ff.av_strerror
#define av_channel_layout_default ff.av_channel_layout_default
#define av_channel_layout_copy ff.av_channel_layout_copy
#define av_channel_layout_uninit ff.av_channel_layout_uninit
#define av_rescale_q ff.av_rescale_q
#define av_opt_set ff.av_opt_set
#define swr_alloc_set_opts2 ff.swr_alloc_set_opts2
#define swr_init ff.swr_init
#define swr_convert ff.swr_convert
#define swr_free ff.swr_free
#define swr_get_delay ff.swr_get_delay
#endif

#endif
