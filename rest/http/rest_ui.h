/*
 * rest_ui: the dashboard's files, served at /ui/ on the REST listener.
 *
 * The dashboard is built from ui/ (npm ci, esbuild) into one flat folder
 * (index.html, app.js, app.css, ...). rest_ui_load reads every regular
 * file of that folder into memory once, at start: a request can only name
 * a file of that table (no path is ever opened on a client's behalf, so
 * no "../" can escape), and a file changed on disk is seen at the next
 * start, as the program it was installed with.
 *
 * The files carry no data: every figure the pages show comes from the API
 * with the user's token. So /ui/ is served without a token even when
 * rest.auth is on (the page asks for a login), with headers that keep it
 * from being framed or sniffed and a content security policy that lets it
 * reach its own origin only.
 *
 *   /            302 to /ui/
 *   /ui          302 to /ui/
 *   /ui/         index.html
 *   /ui/config.json  {"auth": bool, "cluster": bool, "topology": bool,
 *                "circuits": bool}: whether the API wants a token, whether
 *                this ofcd is a cluster's node, whether the topology app
 *                and the circuits app (mef_eline) run (their pages and
 *                columns ask nothing of an API that is not there)
 *   /ui/NAME     the file NAME (404 when not in the folder)
 *   /ui/#/...    the pages' own routes (never reach the server)
 */
#ifndef OFCD_REST_UI_H
#define OFCD_REST_UI_H

#include <stdbool.h>
#include <stddef.h>

#define REST_UI_MAX_FILES 64
#define REST_UI_MAX_BYTES (32u << 20)   /* all files together */
#define REST_UI_NAME_MAX 64
#define REST_UI_CONFIG "config.json"    /* answered by the server, never a file */

struct rest_ui_file {
    char name[REST_UI_NAME_MAX];
    char *data;
    size_t len;
    const char *type;                   /* Content-Type */
};

struct rest_ui {
    struct rest_ui_file files[REST_UI_MAX_FILES];
    unsigned n;
};

/* Read every regular file of dir (not below it) whose name is plain
 * ([A-Za-z0-9._-], not starting with '.'). 0; -ENOENT when dir or its
 * index.html is missing; -EFBIG past the limits above; -ENOMEM; another
 * negative errno from reading. err says which file and why. On error
 * nothing is kept. */
int rest_ui_load(struct rest_ui *ui, const char *dir, char *err, size_t errlen);
void rest_ui_free(struct rest_ui *ui);

/* The file a path names, NULL when none; for "/", "/ui" and "/ui/" see
 * rest_ui_route. */
const struct rest_ui_file *rest_ui_find(const struct rest_ui *ui, const char *name);

/* What a request's path is to the dashboard. */
enum rest_ui_route {
    REST_UI_NONE,                       /* not the dashboard's: the API's */
    REST_UI_REDIRECT,                   /* "/" or "/ui": 302 to /ui/ */
    REST_UI_FILE,                       /* "/ui/" (index.html) or "/ui/NAME": *name set */
};
enum rest_ui_route rest_ui_route(const char *path, const char **name);

/* Content-Type by the name's extension (application/octet-stream if unknown). */
const char *rest_ui_type(const char *name);

#endif
