// What mp4_read needs of H.264 (ITU-T H.264 7.3): the picture size a sequence parameter set
// gives, and whether a sample's bitstream is whole enough that a decoder starts a picture from it.
#ifndef NOTTI_DECODE_H264_H
#define NOTTI_DECODE_H264_H

#include <stddef.h>

/// The picture parameter sets' ids an `avcC` box carries, as a bit set (ids 0–255).
typedef struct H264Parameters {
    unsigned char pps_ids[32];
    int width, height;
    /// The first sequence and picture parameter sets (NAL units), for a decoder.
    const unsigned char *sps, *pps;
    size_t sps_length, pps_length;
} H264Parameters;

/// Reads an `avcC` box's body: the first sequence parameter set's cropped size and every picture parameter
/// set's id. Sets `*length_size` (the bytes before each NAL unit in a sample). 0 when it is not one whose
/// size FFmpeg's decoder reports the same way (scaling matrices, left or top cropping) or it is broken.
int h264_parameters(const unsigned char *avcc, size_t length, int *length_size, H264Parameters *parameters);

/// Whether a sample's NAL units fill it exactly, none is of a kind a plain H.264 decoder refuses, and its first
/// picture slice is an IDR slice whose header starts the picture (first macroblock 0, a known parameter set).
int h264_sample_starts_picture(const unsigned char *sample, size_t length, int length_size, const H264Parameters *parameters);

/// Whether OpenH264 decodes the picture of that first sample, after the parameter sets, with no error (openh264.h).
int h264_first_picture_decodes(const unsigned char *sample, size_t length, int length_size, const H264Parameters *parameters);

#endif
