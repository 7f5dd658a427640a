/* all_gather.c - to be written (work in progress, not yet in any release). */
#include "coll/algorithms.h"
