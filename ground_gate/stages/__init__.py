"""The run's stages, in the order a run passes them: the rows (workload), the targets
answering them (answering), the judge scoring them (runner, evidence), the plan of a run
(planning), shards joined (shard_merge), labels read (labels), and the report files written and
read back (report_files); `starter/` is `init`'s."""
