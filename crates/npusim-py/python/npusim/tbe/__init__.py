"""``from npusim.tbe import tik``: TIK scripts change only their import line."""

from .. import tik

__all__ = ["tik"]
