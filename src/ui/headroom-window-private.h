/* headroom-window-private.h: what the UI tests reach inside the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The buttons and shortcuts call these same functions after their file
 * choosers and dialogs, so the tests exercise the real code paths.
 */
#pragma once

#include "headroom-estimator.h"
#include "headroom-memory-bar.h"
#include "headroom-project.h"
#include "headroom-window.h"

G_BEGIN_DECLS

HeadroomProject   *headroom_window_get_project    (HeadroomWindow *self);
HeadroomEstimator *headroom_window_get_estimator  (HeadroomWindow *self);
HeadroomMemoryBar *headroom_window_get_memory_bar (HeadroomWindow *self);
const char        *headroom_window_get_time_caption (HeadroomWindow *self);
/* The bar of the host memory that offloaded states and activations take (hidden without offload). */
HeadroomMemoryBar *headroom_window_get_cpu_bar    (HeadroomWindow *self);
/* The row editing `key` ("model.hidden_size"), or NULL. */
GtkWidget         *headroom_window_get_row        (HeadroomWindow *self,
                                                   const char     *key);
/* The text of the error banner, or NULL while it is hidden. */
const char        *headroom_window_get_error_text (HeadroomWindow *self);
/* The model banner's sentence (an assumed architecture, a language model
 * only), NULL when hidden. */
const char *headroom_window_get_assumed_text (HeadroomWindow *self);
/* The unknown model_type page's text (it names the model_type), NULL when hidden. */
const char *headroom_window_get_unknown_model_text (HeadroomWindow *self);

/* Shows an error to read whole in a dialog (settings named by their labels);
 * the last one shown, or NULL once closed. */
AdwMessageDialog  *headroom_window_show_error     (HeadroomWindow *self,
                                                   const char     *heading,
                                                   const GError   *error);
AdwMessageDialog  *headroom_window_get_error_dialog (HeadroomWindow *self);

/* Replaces the document with `file` (a project or a Hugging Face config.json),
 * without asking about unsaved changes. */
gboolean           headroom_window_load_file      (HeadroomWindow *self,
                                                   GFile          *file,
                                                   GError        **error);
gboolean           headroom_window_save_to_file   (HeadroomWindow *self,
                                                   GFile          *file,
                                                   GError        **error);

/* Fetches "org/name" (or "hf:org/name") from the Hugging Face Hub in the
 * background and opens its config.json as a new unsaved project; failures
 * show in a dialog. */
void               headroom_window_import_hub     (HeadroomWindow *self,
                                                   const char     *text);

/* Starts a new project or closes the window now, or, when the project has
 * unsaved changes, asks first and returns the question (else NULL). Its
 * responses are "cancel", "discard" and "save". */
AdwMessageDialog  *headroom_window_new_project    (HeadroomWindow *self);
AdwMessageDialog  *headroom_window_close_project  (HeadroomWindow *self);

/* What the Save to Catalog and Save as Preset dialogs do with the name given:
 * add the custom GPU's figures (hardware.gpu must be "custom") or the current
 * model (the preset's config with the edits) to the user's catalog under an
 * id made from `name` ("My GPU" → "my-gpu"), then make the project use it. */
gboolean           headroom_window_save_custom_gpu   (HeadroomWindow *self,
                                                      const char     *name,
                                                      GError        **error);
gboolean           headroom_window_save_model_preset (HeadroomWindow *self,
                                                      const char     *name,
                                                      GError        **error);

G_END_DECLS
