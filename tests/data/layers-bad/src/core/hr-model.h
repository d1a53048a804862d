/* Fixture: the core header the widget must not include. */
