from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static


class Batches(CalibrationDataReader):
    def __init__(self, batches):
        self.batches = iter(batches)

    def get_next(self):
        batch = next(self.batches, None)
        return None if batch is None else {"x": batch}


def quantize(model_path, output_path, calibration):
    quantize_static(model_path, output_path, Batches(calibration), quant_format=QuantFormat.QDQ,
                    per_channel=True, weight_type=QuantType.QInt8, activation_type=QuantType.QInt8)
