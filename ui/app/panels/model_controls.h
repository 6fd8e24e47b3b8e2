// model_controls.h: the Parameters panel's group for a state that runs a trained
// model (attnviz/model.h): the model and its sizes, the probe (Repeat random
// tokens) and its vocabulary as chips to add.
#pragma once

namespace attnviz::ui {

struct AppModel;

void model_group(AppModel& m);

}  // namespace attnviz::ui
