#pragma once

#include <QStringList>

namespace portolan::views {

// Short names for the files of one folder whose names are flattened paths, folders joined by
// "__" (a Model Zoo checkout flattened into one folder:
// "RELEASE_2.2.1__models__nlp__gpt2__configs__params_gpt2_small.yaml"). Such names differ only
// in the middle, so any cut at 150 pixels leaves fragments ("…_….yaml"). The short name is the
// part that tells a file from the others: its own stem, after the nearest folder that is not
// shared by most of the folder's names (the model's folder, not "configs"), and that folder
// left out when the stem already names it: "llama › params_llama2_70b", "params_gpt2_small".
// Names that would still read the same get the first folder where they differ in front
// ("R_1.6.0 › pytorch › params"). An extension shared by all of them is left out. An empty
// string for a name that is not a flattened path (fewer than three parts).
QStringList flattenedShortNames(const QStringList& names);

} // namespace portolan::views
