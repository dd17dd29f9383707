"""The machinery every canonical table shares, whatever its columns.

The columnar reader (:mod:`~manyjudges.io.engine.columnar`: :class:`~manyjudges.io.engine.columnar.ColumnarTable`,
pyarrow's CSV parser, the column habits) with its batch-by-batch reading of large files
(:mod:`~manyjudges.io.engine.batches`) and the rows' file lines (:mod:`~manyjudges.io.engine.row_lines`);
the checks the table readers share (:mod:`~manyjudges.io.engine.checks`); the writer of tables as TSV or
CSV text (:mod:`~manyjudges.io.engine.table_text`); the short lists of ids with counts
(:mod:`~manyjudges.io.engine.id_counts`); and the errors (:mod:`~manyjudges.io.engine.errors`).
"""
