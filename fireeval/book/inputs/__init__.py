"""One input layer per chapter: the chapter's data from the registry, the reader's own files, or the stand-in."""
