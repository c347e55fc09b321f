"""Grades quantize(): an MLP built here as ONNX, quantised by the learner's function with
calibration data drawn here, then compared with the float model on fresh inputs."""

import os
import time

import numpy as np


def _mlp(rng, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    sizes = [256, 512, 512, 10]
    nodes, inits, prev = [], [], "x"
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        w = (rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32)
        bias = (rng.normal(size=b) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(bias, f"b{i}")]
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"])]
        prev = f"a{i}"
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
            prev = f"r{i}"
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 256])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["n", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def _session(path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def _latency(sess, x, repeats=30):
    name = sess.get_inputs()[0].name
    for _ in range(3):
        sess.run(None, {name: x})
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sess.run(None, {name: x})
        best = min(best, time.perf_counter() - t0)
    return best


def grade(g):
    import onnx

    mod = g.learner("ptq")
    rng = np.random.default_rng(g.seed)
    src, out = os.path.join(g.scratch, "model.onnx"), os.path.join(g.scratch, "model.int8.onnx")
    _mlp(rng, src)
    shift = rng.uniform(-0.5, 0.5, size=256).astype(np.float32)        # inputs are not centred
    calibration = [rng.normal(size=(32, 256)).astype(np.float32) + shift for _ in range(8)]
    mod.quantize(src, out, [c.copy() for c in calibration])
    if not g.check("written", os.path.isfile(out), "quantize wrote no model at output_path"):
        return
    ops = {n.op_type for n in onnx.load(out).graph.node}
    if not g.check("static-qdq", "QuantizeLinear" in ops and "DynamicQuantizeLinear" not in ops,
                   f"expected a static QDQ model (QuantizeLinear / DequantizeLinear); its operators: {sorted(ops)}"):
        return
    x = rng.normal(size=(2000, 256)).astype(np.float32) + shift
    ref, q = _session(src), _session(out)
    want = ref.run(None, {"x": x})[0].argmax(1)
    got = q.run(None, {"x": x})[0].argmax(1)
    agree = float((want == got).mean())
    g.figure("agreement_with_float", agree)
    g.figure("accuracy_drop_points", 100 * (1 - agree))
    g.figure("size_reduction", os.path.getsize(src) / os.path.getsize(out))
    batch = x[:64]
    t_float, t_int8 = _latency(ref, batch), _latency(q, batch)
    g.figure("float_ms", t_float * 1e3)
    g.figure("int8_ms", t_int8 * 1e3)
    g.figure("speedup", t_float / t_int8)
