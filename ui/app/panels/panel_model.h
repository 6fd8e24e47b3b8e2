// panel_model.h: the Model tab, shown when the state runs a trained model
// (attnviz/model.h): what it predicts next at each position, the residual stream
// between the layers, and its training (checkpoints and the loss curve).
#pragma once

namespace attnviz::ui {

struct AppModel;

void model_tab(AppModel& m);

}  // namespace attnviz::ui
