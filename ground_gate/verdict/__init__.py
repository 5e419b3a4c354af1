"""The decision, pure: a run's record (record), each dataset's scores and their change against
a baseline (dataset_scores), thresholds to verdicts (gate), agreement with human labels
(agreement)."""
