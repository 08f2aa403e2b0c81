import numpy as np
import pytest

from grader import frames, wire
from grader.wire import ForeignArray, Opaque, RaisedError, WireError


def roundtrip(value):
    frame = frames.pack(wire.encode(value))
    return wire.decode(frames.parse(frame[frames.HEADER_SIZE:]))


def test_arrays_numbers_and_containers_survive():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = roundtrip((x, [1, 2.5, None, True, "s"], {"k": np.bool_(True)}))
    assert isinstance(out, tuple)
    assert out[0].dtype == np.float32 and np.array_equal(out[0], x) and not out[0].flags.writeable
    assert out[1] == [1, 2.5, None, True, "s"]
    assert out[2]["k"] is True


def test_zero_dimensional_arrays_keep_their_shape():
    out = roundtrip(np.array(2.5))
    assert out.shape == () and out == 2.5
    assert roundtrip([np.float64(1.5), np.int64(2)]) == [1.5, 2]


def test_big_endian_arrays_arrive_as_the_same_numbers():
    out = roundtrip(np.arange(6, dtype=">f8").reshape(2, 3))
    assert out.dtype == np.float64 and np.array_equal(out, np.arange(6.0).reshape(2, 3))
    assert np.array_equal(roundtrip(np.array([1, -2], dtype=">i4")), [1, -2])


def test_nan_and_inf_survive():
    out = roundtrip(np.array([np.nan, np.inf, -np.inf]))
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == -np.inf


def test_subclasses_are_reduced_to_their_data_and_named():
    class Liar(np.ndarray):
        def __eq__(self, other):
            return True

        def __array_ufunc__(self, *args, **kwargs):
            return True

    lie = np.zeros(3).view(Liar)
    out = roundtrip(lie)
    assert isinstance(out, ForeignArray) and out.type.endswith("Liar")
    assert type(out.array) is np.ndarray and np.array_equal(out.array, np.zeros(3))


def test_objects_and_object_arrays_are_opaque():
    class Evil:
        def __reduce__(self):
            raise AssertionError("never pickled")

    assert isinstance(roundtrip(Evil()), Opaque)
    assert isinstance(roundtrip(np.array([Evil()], dtype=object)), Opaque)


def test_errors_carry_type_bases_and_message():
    class MyError(ValueError):
        pass

    err = wire.decode(wire.encode_error(MyError("bad")))
    assert isinstance(err, RaisedError) and err.type == "MyError" and err.is_a("ValueError")
    assert err.describe() == "MyError: bad"


@pytest.mark.parametrize(
    "message",
    [
        {"$array": {"dtype": "object", "shape": [1], "data": "", "type": "numpy.ndarray"}},
        {"$array": {"dtype": "float64", "shape": [2], "data": "AAAAAAAAAAA=", "type": "numpy.ndarray"}},
        {"$array": {"dtype": "float64", "shape": [-1], "data": "", "type": "numpy.ndarray"}},
        {"$pickle": "gASV"},
        {"a": 1, "b": 2},
    ],
)
def test_the_decoder_rejects_anything_else(message):
    with pytest.raises(WireError):
        wire.decode(message)


def test_requests_and_replies_are_typed_records_with_json_only_on_the_wire():
    calls = wire.Calls("softmax", ((wire.encode([np.ones(3)]), wire.encode({"axis": 0})),))
    module = wire.ModuleCall("M", wire.encode([4, 2]), "forward", args=wire.encode([]), grad_inputs=(0, 1),
                             fetch=("pe",))
    for request in (calls, module, wire.ModuleCall("M", wire.encode([3]), None)):
        assert wire.request_from_json(frames.parse(frames.pack(request.to_json())[frames.HEADER_SIZE:])) == request
    for reply in (wire.Reply(value=[1, 2]), wire.Reply(error=wire.encode_error(ValueError("no"))),
                  wire.Reply(missing="f"), wire.Reply(missing="f", kind="int")):
        assert wire.Reply.from_json(frames.parse(frames.pack(reply.to_json())[frames.HEADER_SIZE:])) == reply
    for bad in ([], {"op": "calls"}, {"op": "exec", "name": "f"}):
        with pytest.raises(wire.WireError):
            wire.request_from_json(bad)
    with pytest.raises(wire.WireError):
        wire.Reply.from_json(["value"])
