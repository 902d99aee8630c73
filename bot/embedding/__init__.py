"""The embedding model: its identity, its backends (ONNX Runtime for serving, PyTorch for building), its ONNX
export, and the records kept beside the index."""
