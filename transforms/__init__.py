"""Beam PTransforms and DoFns: thin shells around the functions in models/."""
