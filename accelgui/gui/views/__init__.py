"""One module per page of the main window. Each view is a QWidget with two methods:

``render(state: ViewState)`` rebuilds what it shows from an immutable report, and
``retranslate()`` resets its fixed texts after a language switch.
"""
