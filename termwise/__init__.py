"""termwise: RTL generator and verification flow for value-based DNN accelerators.

The top-level folders of the repository (``rtl/``, ``gen/``, ``golden/``, ``tb/``, ``synth/``)
are installed as the sub-packages ``termwise.rtl``, ``termwise.gen`` and so on.
"""

__version__ = "0.1.0"
