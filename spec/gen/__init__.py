"""Generators for everything derived from spec/xgpu.json."""
