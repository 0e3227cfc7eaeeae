"""Beam PTransforms and DoFns: thin shells around the functions in models/."""
from transforms import beam_patches

beam_patches.install()
