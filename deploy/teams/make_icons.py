"""Draw the Teams app icons: color.png (192x192, full colour) and outline.png (32x32, white
on transparent, as Teams requires). Run from anywhere: `python deploy/teams/make_icons.py`."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
ACCENT = (46, 94, 140, 255)  # the manifest's accentColor, #2E5E8C
WHITE = (255, 255, 255, 255)
SCALE = 8  # draw large, then shrink: smooth edges without a font or an SVG renderer


def speech_bubble(size: int, *, background: tuple[int, int, int, int] | None) -> Image.Image:
    """A speech bubble holding three lines of text: a bot that answers from documents."""
    big = size * SCALE
    image = Image.new("RGBA", (big, big), background or (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    pad = big * (0.16 if background else 0.06)
    top, bottom = pad + big * 0.04, big - pad - big * 0.16
    radius = big * 0.12
    stroke = max(SCALE, int(big * 0.06))
    bubble = (pad, top, big - pad, bottom)
    draw.rounded_rectangle(bubble, radius=radius, outline=WHITE, width=stroke)
    tail_x = pad + big * 0.18
    draw.polygon(
        [(tail_x, bottom - stroke), (tail_x + big * 0.2, bottom - stroke), (tail_x, big - pad)],
        fill=WHITE,
    )
    inner = pad + big * 0.14
    for i, share in enumerate((1.0, 0.8, 0.55)):  # three lines of text, shortening
        y = top + (bottom - top) * (0.3 + 0.2 * i)
        draw.line((inner, y, inner + (big - 2 * inner) * share, y), fill=WHITE, width=stroke)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    speech_bubble(192, background=ACCENT).save(HERE / "color.png")
    outline = speech_bubble(32, background=None)
    # Teams wants pure white on transparent: keep the anti-aliasing in alpha, not in colour
    alpha = outline.getchannel("A")
    white = Image.new("RGBA", outline.size, WHITE)
    white.putalpha(alpha)
    white.save(HERE / "outline.png")


if __name__ == "__main__":
    main()
