"""The book-wide pages and tables above the chapters: the registry of every claim, the errata,
the slides, lessons and instructor notes, the glossary, the status page and the front door.
They read every chapter; no chapter reads them."""
