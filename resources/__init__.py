"""Data files of the app (icons, style sheet, translations), read with importlib.resources."""
