// The Config struct's defaults are in config.hpp; this file anchors the module's library.
#include "nvct/config/config.hpp"
