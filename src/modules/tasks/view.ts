// A tasks row in the API's Task shape.
import type { TasksTable } from '../../adapters/db/schema.js';
import type { FailureCategory, TaskView } from './schemas.js';

export function taskView(r: TasksTable): TaskView {
  const view: TaskView = {
    id: r.id,
    current_state: r.current_state,
    display_name: r.display_name,
    task: r.task,
    website: r.website,
    input_schema: r.input_schema,
    output_schema: r.output_schema,
    creation: JSON.parse(r.creation),
    created_at: r.created_at,
    updated_at: r.updated_at,
    required_secrets: r.required_secrets ? JSON.parse(r.required_secrets) : [],
  };
  if (r.current_state === 'failed' && r.failure_category) {
    view.failure_info = { category: r.failure_category as FailureCategory, message: r.failure_message ?? '' };
  }
  return view;
}
