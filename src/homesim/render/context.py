"""The headless OpenGL context: EGL through moderngl (Mesa's llvmpipe on a CPU, a GPU where EGL finds one).

Nothing else in homesim needs it: when EGL is missing, asking for pixels raises `RenderingUnavailable`
with one line that says so, and every pixel-free part (engine, tasks, text, masks, top-down maps)
keeps working. No context is made at import time.
"""

from __future__ import annotations

import moderngl

HINT = "install Mesa's EGL (Debian/Ubuntu: libegl1 libgl1-mesa-dri, as install.sh does)"


class RenderingUnavailable(RuntimeError):
    """No headless OpenGL context could be made; the message is one line for the user."""


def create_context() -> moderngl.Context:
    """A standalone EGL context with OpenGL 3.3 core, or RenderingUnavailable."""
    try:
        return moderngl.create_context(standalone=True, backend="egl", require=330)
    except Exception as e:  # glcontext raises plain Exceptions whose text names the missing piece
        reason = " ".join(str(e).split()) or type(e).__name__
        raise RenderingUnavailable(
            f"homesim: no headless OpenGL (EGL) context ({reason}); pixels are off, everything else works; {HINT}"
        ) from e
