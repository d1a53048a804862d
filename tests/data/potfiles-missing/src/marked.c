/* Fixture: a translatable string in a file missing from POTFILES.in. */
static const char *label = N_("Parameters");
