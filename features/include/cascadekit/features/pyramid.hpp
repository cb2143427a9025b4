#pragma once
// Image pyramids (Bilgiç, MIT 2010; Dalal, PhD thesis 2006). Level k is the input shrunk by scale_k = first_scale ·
// step^k; a detection window at level k covers window × scale_k input pixels.
#include <cstdint>
#include <deque>
#include <vector>

#include "cascadekit/features/image.hpp"

namespace cascadekit {

struct PyramidLevel {
    double scale = 1.0;  // input pixels per level pixel
    int width = 0;       // floor(input width / scale) + 2·pad
    int height = 0;
    int octave = 0;      // resampled from the input halved this many times: octave_of(scale)
    // Level pixels of border on every side (OpenCV's detectMultiScale pads each level so that
    // windows reach past the image): level pixel (u, v) samples the input at ((u − pad + ½)·scale,
    // (v − pad + ½)·scale), clamped, so the border replicates the image's edge. A window at level
    // position (x, y) covers input pixels from ((x − pad)·scale, (y − pad)·scale).
    int pad = 0;
};

// Levels with scale first_scale · step^k, k = 0, 1, … while the level is at least the window
// (both sides, before padding) and, when max_scale > 0, scale <= max_scale. first_scale < 1
// upscales the input (for objects smaller than the window). Each level gets `pad` pixels of
// replicated border on every side (PyramidLevel::pad). Empty when the first level is smaller
// than the window. Requires: step > 1, first_scale > 0, window sides > 0, 0 <= pad <= 1024;
// throws std::invalid_argument otherwise.
std::vector<PyramidLevel> plan_pyramid(int image_width, int image_height, int window_width,
                                       int window_height, double step, double first_scale = 1.0,
                                       double max_scale = 0.0, int pad = 0);

// The level of an image_width × image_height input at this scale (what plan_pyramid lists).
PyramidLevel pyramid_level(int image_width, int image_height, double scale, int pad = 0);

// Antialiasing. Bilinear resampling reads 2×2 source pixels, so shrinking by more than 2 skips
// pixels and aliases: fine texture turns into false gradients. People in street photos often
// stand 250+ pixels tall, so a 64×128 window meets them at scale 3 or more, where plain bilinear
// levels made our detectors miss far more people on PennFudanPed (log-average miss rate 0.82 vs
// 0.75 for the same cascade). So, as
// in OpenCV's pyrDown and Dollár's channel pyramids, the input is first halved repeatedly (octave
// k: octave k−1 averaged over 2×2 blocks, rounded, floor(size/2)), and a level of scale s is
// resampled bilinearly from octave octave_of(s), shrinking it by s / 2^octave ∈ [1, 2).
// Octave pixel j covers input pixels [2^k j, 2^k (j+1)), so level pixel u still samples the input
// around (u + ½)·s: the octave's resampling scale is exactly s / 2^k (a power-of-two division).
int octave_of(double scale);  // largest k >= 0 with 2^k <= scale (0 for scale < 2)
void halve(const GrayImage& src, GrayImage& dst);  // requires src at least 2×2

// The octaves of one image, built on demand. Octave 0 is the image itself, referenced (it must
// outlive the use of this object and stay unchanged).
class Octaves {
public:
    void reset(const GrayImage& image);
    const GrayImage& get(int k);  // requires reset() and 0 <= k with octave k at least 1×1
    // Octave k once get(k) (or a deeper get) has built it since reset(): reads only, so threads
    // may share it. Throws std::logic_error for an octave not built.
    const GrayImage& built(int k) const;

private:
    const GrayImage* base_ = nullptr;
    std::deque<GrayImage> halves_;  // halves_[k-1] is octave k (a deque: references stay valid)
    int built_ = 0;
};

// Bilinear resampling of src to dst_width × dst_height with the given scale (src pixels per dst
// pixel): dst(u, v) samples src at ((u + ½)·scale − ½, (v + ½)·scale − ½), clamped to the image,
// with 11-bit fixed-point weights and rounding (every backend produces the same bytes).
// One axis of that resampling: destination index u reads source indices i0[u] and i1[u] with
// weight wt[u] / 2^kResampleBits on i1 (the CUDA backend uploads these tables).
inline constexpr int kResampleBits = 11;
struct ResampleAxis {
    std::vector<int> i0, i1, wt;
};
// With pad, destination index u samples as u − pad would (the border clamps to the source's edge).
ResampleAxis resample_axis(int dst, int src, double scale, int pad = 0);

void resample_bilinear(const GrayImage& src, double scale, int dst_width, int dst_height,
                       GrayImage& dst, int pad = 0);

// The 5-tap binomial smoothing [1 4 6 4 1] / 16 along rows, then along columns (σ = 1 pixel), in
// integers: each row pass's sums kept exact (at most 16·255), the column pass rounded once,
// (Σ + 128) / 256; edges replicated. dst takes src's size (its storage reused); src and dst must
// differ. Parallel over rows (TBB). A level scanned with scaled windows on its octave
// (DetectParams::scale_windows) reads the octave smoothed so, so that its gradients and cells
// resemble those of a level up to twice as coarse.
void smooth_binomial(const GrayImage& src, GrayImage& dst);
// The same for each of the three colour planes.
void smooth_binomial(const ColourPlanes& src, ColourPlanes& dst);
// A pyramid level's image: bilinear from the level's octave at scale / 2^octave, with its border.
void resample_level(Octaves& octaves, const PyramidLevel& level, GrayImage& dst);
// The same from the level's octave (octave_of(level.scale) of the input).
void resample_level(const GrayImage& octave, const PyramidLevel& level, GrayImage& dst);
// The scale at which a level samples its octave.
double octave_scale(const PyramidLevel& level);

// One frame's pyramid as the CPU detector builds it: the frame in gray (to_gray) and, for models
// with colour gradients (HogParams::channels), its R, G, B planes (to_planes); each level is
// resampled from each plane's octaves alike (resample_level). Reuses its storage between frames.
// Holds pointers into itself: reset() again after moving or copying it.
class FramePyramid {
public:
    // gray_levels false: levels are not resampled in gray (a model whose features all come from
    // the colour planes); a level's gray() is then an empty image except at the frame's own level.
    void reset(const ImageView& image, bool colour, bool gray_levels = true);
    const GrayImage& frame() const { return gray_; }  // the whole frame in gray
    // Builds every octave these levels read, so that level() may then run for them on several
    // threads at once (each into its own Level). Requires reset().
    void prepare(const std::vector<PyramidLevel>& levels);

    // One level's images and their storage, reused between levels and frames. Points into the
    // FramePyramid that filled it when the level is the frame itself.
    class Level {
    public:
        const GrayImage& gray() const { return *gray_; }
        const ColourPlanes* colour() const { return colour_; }  // null without colour

    private:
        friend class FramePyramid;
        GrayImage image_, none_;
        ColourPlanes planes_;
        const GrayImage* gray_ = &none_;
        const ColourPlanes* colour_ = nullptr;
    };
    // Makes `out` hold `level`: the frame itself when the level is the frame unscaled and
    // unpadded, else resampled into out's storage. Requires prepare() with a list holding the
    // level; const, so concurrent calls into different Levels are safe.
    void level(const PyramidLevel& level, Level& out) const;

private:
    GrayImage gray_;
    Octaves octaves_;
    bool colour_on_ = false, gray_levels_ = true;
    ColourPlanes colour_;
    Octaves colour_octaves_[3];
};

}  // namespace cascadekit
