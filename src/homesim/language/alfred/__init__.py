"""ALFRED's language: directives written from a demonstration (`directives`), in the names people use (`lexicon`, mined from ALFRED's by `mining`), describing each walk (`routes`)."""
