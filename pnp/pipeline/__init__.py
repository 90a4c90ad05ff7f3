"""pipeline: checked games -> files on disk, incrementally: render what changed (in worker
processes), commit atomically, record what each PDF was made from; and watch, which does it on
every save."""
