"""The PyTorch front end: capture a program by tracing and import its aten
operations one-to-one into tensorir."""

from .capture import CaptureError, FrontendError, Program, capture
from .importer import UnsupportedOperation, import_program

__all__ = ["CaptureError", "FrontendError", "Program", "UnsupportedOperation",
           "capture", "import_program"]
