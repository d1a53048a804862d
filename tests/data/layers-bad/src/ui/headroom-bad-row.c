/* Fixture for check-layers.py: a widget that computes with the core. */
#include "hr-model.h"
