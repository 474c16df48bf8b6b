"""TFM571-TFM579 (rules/release_notes.toml): the silent changes of TF 0.7-1.15's release notes that no
other family keeps, reported on their line only where the code shows the legacy reading.

``benchmarks/data/breaking_changes.toml`` lists each change with its decision; this family holds the
ones whose legacy meaning has no faithful mechanical form (the file does not say which TF it was
written for), each scoped to the construct whose result the change moves.
"""

from tfmigrate.transforms.release_notes.transform import ReleaseNoteChanges

__all__ = ["ReleaseNoteChanges"]
