"""Report writers of the subcommands: JSON, CSV, Markdown and plots (:mod:`.plots`)."""
