/* addr.c - parsing "host:port" network addresses given in the environment. */
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"

int sym_addr_parse(const char *text, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon;
    const char *h = text;
    size_t hl;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':')
            return -1;
        h = text + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(text, ':');
        if (!colon || strchr(text, ':') != colon)
            return -1;
        hl = (size_t)(colon - text);
    }
    const char *p = colon + 1;
    if (hl == 0 || hl >= hlen || !*p || strlen(p) >= plen || strspn(p, "0123456789") != strlen(p))
        return -1;
    long v = strtol(p, NULL, 10);
    if (v < 1 || v > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    strcpy(port, p);
    return 0;
}
