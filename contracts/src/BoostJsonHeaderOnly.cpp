// Boost.JSON's implementation, compiled once here where the machine has only
// Boost's headers (no libboost_json).
#include <boost/json/src.hpp>
