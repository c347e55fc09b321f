"""Static post-training int8 quantisation with ONNX Runtime (QDQ format)."""

import numpy as np  # noqa: F401
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static  # noqa: F401


def quantize(model_path, output_path, calibration):
    """Write an int8 version of the float ONNX model at ``model_path`` to ``output_path``.

    ``calibration`` is a list of float32 input batches (numpy arrays) representative of real
    inputs; the model has one input, named "x".

    TODO: a CalibrationDataReader whose get_next() returns {"x": batch} for each batch, then
    None; quantize_static(model_path, output_path, reader, quant_format=QuantFormat.QDQ,
    per_channel=True, weight_type=QuantType.QInt8, activation_type=QuantType.QInt8).
    """
    raise NotImplementedError("write quantize")
