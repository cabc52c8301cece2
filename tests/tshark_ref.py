# SPDX-License-Identifier: GPL-2.0
"""tshark as the reference for ebpfcount's counts, shared by the host test
(tests/host/50-vm-count.t) and the guest test (tests/vm/50-count.t)."""
import ipaddress


def frame_specs(specs):
    """The index in specs ((craft spec, ...) tuples) of each frame, in the
    order craft sends or writes them."""
    out = []
    for i, spec in enumerate(specs):
        n = [int(o[2:]) for o in spec[0].split(",") if o.startswith("n=")]
        out += [i] * (n[0] if n else 1)
    return out


def keys_of(expr):
    expr = expr.split(" where ", 1)[0]
    if " by " not in expr:
        return []
    return [k.strip() for k in expr.split(" by ", 1)[1].split(",")]


def normal(field, value):
    """tshark's text for a field as ebpfcount's CSV writes it."""
    _, _, prefix = field.partition("/")
    if value == "":
        return "-"
    if prefix:
        return str(ipaddress.ip_network(value + "/" + prefix, strict=False))
    if value.startswith("0x"):
        return str(int(value, 16))
    return value


def skb_len(spec, frame_len):
    """The kernel moves a received VLAN tag out of the frame (FACTS.md)."""
    return frame_len - 4 if "vlan=" in spec else frame_len
