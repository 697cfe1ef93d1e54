"""Pictures matched at once by their spectra give what OpenCV's matchTemplate gives each."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.templates import best_matches, near_best, plain_bank, plain_peaks, template_bank


def _opencv(window: np.ndarray, pictures: list[np.ndarray]) -> np.ndarray:
    return np.array(
        [cv2.minMaxLoc(cv2.matchTemplate(window, picture, cv2.TM_CCOEFF_NORMED))[1] for picture in pictures]
    )


def _blurred(values: np.ndarray) -> npt.NDArray[np.float32]:
    return np.asarray(cv2.GaussianBlur(values.astype(np.float32), (0, 0), 1.5), np.float32)


@pytest.mark.parametrize("shape", [(69, 69), (61, 69), (45, 52), (23, 23)])
def test_every_picture_matches_as_opencv_matches_it(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    window = _blurred(rng.random((*shape, 3)))
    pictures = [_blurred(rng.random((23, 23, 3))) for _ in range(5)]
    # One picture cut from the window itself, turned a little: its best match is high, not perfect.
    middle = (shape[1] / 2, shape[0] / 2)
    turned = cv2.warpAffine(window, cv2.getRotationMatrix2D(middle, 7.5, 1.0), (shape[1], shape[0]))
    top, left = shape[0] // 2 - 11, shape[1] // 2 - 11
    pictures.append(np.asarray(turned[top : top + 23, left : left + 23], np.float32))
    found = best_matches(window, template_bank(pictures))
    assert found.shape == (6,)
    np.testing.assert_allclose(found, _opencv(window, pictures), atol=1e-5)


def test_a_picture_cut_from_the_window_matches_fully() -> None:
    window = np.random.default_rng(3).random((40, 50, 3)).astype(np.float32)
    found = best_matches(window, template_bank([window[5:20, 30:45]]))
    # Single-precision transforms, as OpenCV's: full to a few parts in ten million.
    assert found[0] == pytest.approx(1.0, abs=1e-6)


def test_one_channel_pictures_match_as_opencv_matches_them() -> None:
    rng = np.random.default_rng(4)
    window = rng.random((30, 34)).astype(np.float32)
    pictures = [rng.random((9, 9)).astype(np.float32), window[10:19, 3:12].copy()]
    np.testing.assert_allclose(
        best_matches(window, template_bank(pictures)), _opencv(window, pictures), atol=1e-5
    )


def test_a_flat_window_matches_nothing_as_opencv_says() -> None:
    window = np.full((30, 30, 3), 0.5, np.float32)
    picture = np.random.default_rng(5).random((11, 11, 3)).astype(np.float32)
    np.testing.assert_allclose(
        best_matches(window, template_bank([picture])), _opencv(window, [picture]), atol=1e-6
    )


def test_a_window_smaller_than_the_pictures_is_refused() -> None:
    picture = np.zeros((11, 11, 3), np.float32)
    with pytest.raises(ValueError, match="smaller than the 11x11 pictures"):
        best_matches(np.zeros((10, 30, 3), np.float32), template_bank([picture]))


def test_the_bank_is_read_only() -> None:
    bank = template_bank([np.ones((5, 5, 3), np.float32)])
    with pytest.raises(ValueError):
        bank.centred[0, 0, 0, 0] = 1.0


def _opencv_plain(window: np.ndarray, pictures: list[np.ndarray]) -> np.ndarray:
    return np.array(
        [cv2.minMaxLoc(cv2.matchTemplate(window, picture, cv2.TM_CCORR))[1] for picture in pictures]
    )


@pytest.mark.parametrize("shape", [(113, 113), (97, 110), (40, 40)])
def test_plain_peaks_lie_within_their_error_of_opencvs(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    window = _blurred(rng.random(shape) * 80.0)
    pictures = [_blurred(rng.random((31, 31))) for _ in range(6)] + [window[3:34, 5:36].copy()]
    peaks, error = plain_peaks(window, plain_bank(pictures))
    truth = _opencv_plain(window, pictures)
    assert (np.abs(peaks - truth) <= error).all()
    # The bound is a safe one, not a loose one: far wider than the transforms' own error, and still
    # a small share of the peaks.
    assert (np.abs(peaks - truth) < error / 10).all()
    assert (error < 1e-3 * truth).all()


def test_near_best_keeps_the_true_best_whatever_the_rough_order() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        truth = rng.random(17)
        error = np.full(17, 0.02)
        rough = truth + rng.uniform(-0.02, 0.02, 17)
        near = near_best(rough, error)
        assert int(np.argmax(truth)) in near
        assert all(truth[k] >= truth.max() - 0.08 for k in near)


def test_a_flat_window_leaves_every_picture_near_the_best() -> None:
    pictures = [np.random.default_rng(k).random((9, 9)).astype(np.float32) for k in range(4)]
    peaks, error = plain_peaks(np.zeros((20, 20), np.float32), plain_bank(pictures))
    assert near_best(peaks, error).tolist() == [0, 1, 2, 3]
