"""HandMeThat's learned baselines: Seq2Seq(+goal/+subgoal) (`seq2seq`) and DRRN (`drrn`), their networks (`models`), demonstrations (`data`) and trainer (`train`)."""
