"""The report's data: its typed shape (types), its published schema (schema,
report.schema.json), a record made into one (json_report) and one read back into a record
(readback); calibrate's report's shape (calibration_types)."""
