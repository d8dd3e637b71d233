"""The access picture as PNG: the SVG of :mod:`.svg` rasterised by CairoSVG.

CairoSVG is an optional extra (``pip install 'npusim[png]'``; it draws with the system's
cairo library, ``libcairo2`` on Debian).  Without it :func:`svg_to_png` raises an
``ImportError`` that names the extra to install.  The PNG is the SVG's own drawing, pixel for
pixel at its width and height: there is one picture model, not two.
"""

from __future__ import annotations

__all__ = ["PNG_EXTRA", "svg_to_png"]

PNG_EXTRA = ("PNG pictures need the 'png' extra: pip install 'npusim[png]' (CairoSVG, which draws with the "
             "system's cairo library: libcairo2 on Debian)")


def svg_to_png(svg: str) -> bytes:
    """``svg`` (a document of :mod:`.svg`) as PNG bytes of the same width and height in pixels."""
    try:
        import cairosvg
    except ImportError as err:
        raise ImportError(PNG_EXTRA) from err
    except OSError as err:  # CairoSVG is installed, the cairo library it loads is not
        raise ImportError(f"{PNG_EXTRA}; loading it failed: {err}") from err
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"))
