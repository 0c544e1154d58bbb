"""Curation: verb names, ranking, the one pack's pick, `--for` task packs and families."""
