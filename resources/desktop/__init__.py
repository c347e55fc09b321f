"""The desktop entry and AppStream metainfo, installed by ``accelgui --install-desktop``."""
