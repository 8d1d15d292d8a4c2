import { field, fields } from '../guard.ts';
import type { Form } from '../guard.ts';
import { Csrf, FormError } from '../layout.tsx';
import { Field } from '../links/form.tsx';
import type { Choice } from '../links/options.ts';
import type { Input } from './inputs.ts';
import type { ResourceScreen } from './screen.ts';

/** The label of a field: the screen's word for it, else its name with a capital. */
export const labelOf = (screen: ResourceScreen, name: string): string => screen.labels?.[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

/** One input of a resource form, as its kind asks (`choices`: a reference field's records). */
function Control(props: { screen: ResourceScreen; input: Input; value: Form; errors: Record<string, string>; choices: Choice[]; creating: boolean }) {
  const { screen, input: i, value, errors } = props;
  // On an edit form every field is sent: "optional" means something only to a new record.
  const label = labelOf(screen, i.name) + (i.required || !props.creating ? '' : ' (optional)');
  const text = field(value, i.name);
  const optionLabel = (o: string) => screen.optionLabels?.[i.name]?.[o] ?? o;
  if (i.kind === 'checkbox' || i.kind === 'checks' || i.kind === 'references') {
    // Boxes: a fieldset (checks) or one label (checkbox), the message tied to it.
    const error = errors[i.name];
    const described = error ? `${i.name}-error` : undefined;
    const message = error && (
      <p class="err" id={`${i.name}-error`}>
        {error}
      </p>
    );
    if (i.kind === 'checkbox') {
      return (
        <div class="field check">
          <label>
            <input type="checkbox" name={i.name} id={`f-${i.name}`} checked={text === 'on'} aria-describedby={described} /> {labelOf(screen, i.name)}
          </label>
          {screen.hints?.[i.name] && <span class="hint">{screen.hints[i.name]}</span>}
          {message}
        </div>
      );
    }
    const picked = fields(value, i.name);
    const boxes: Choice[] = i.kind === 'references' ? props.choices : (i.options ?? []).map((o) => ({ value: o, label: optionLabel(o) }));
    return (
      <fieldset aria-describedby={described}>
        <legend>{labelOf(screen, i.name)}</legend>
        <div class="checks">
          {boxes.map((o) => (
            <label>
              <input type="checkbox" name={i.name} value={o.value} checked={picked.includes(o.value)} /> {o.label}
            </label>
          ))}
        </div>
        {screen.hints?.[i.name] && <span class="hint">{screen.hints[i.name]}</span>}
        {message}
      </fieldset>
    );
  }
  return (
    <Field name={i.name} label={label} errors={errors} {...(screen.hints?.[i.name] ? { hint: screen.hints[i.name] } : {})}>
      {(aria) => {
        const common = { ...aria, name: i.name, required: i.required };
        if (i.kind === 'textarea') return <textarea {...common} rows={4} maxlength={i.maxLength}>{text}</textarea>;
        if (i.kind === 'select' || i.kind === 'reference') {
          const choices: Choice[] = i.kind === 'select' ? (i.options ?? []).map((o) => ({ value: o, label: optionLabel(o) })) : props.choices;
          return (
            <select {...common}>
              {(!i.required || i.kind === 'reference') && <option value="">None</option>}
              {choices.map((ch) => (
                <option value={ch.value} selected={ch.value === text}>
                  {ch.label}
                </option>
              ))}
            </select>
          );
        }
        // A colour picker always posts #rrggbb; a stored value it cannot show is kept as typed text.
        const colour = i.kind === 'color' && /^#[0-9A-Fa-f]{6}$/.test(text);
        const type = i.kind === 'number' ? 'number' : i.kind === 'url' ? 'url' : colour ? 'color' : 'text';
        return <input {...common} type={type} value={colour ? text.toLowerCase() : text} min={i.min} max={i.max} maxlength={i.kind === 'text' ? i.maxLength : undefined} placeholder={i.kind === 'url' ? 'https://' : undefined} />;
      }}
    </Field>
  );
}

/** The create or edit form of a resource: an input per field, each API message beside its field, what was typed kept. */
export function ResourceForm(props: { screen: ResourceScreen; action: string; csrf: string; inputs: readonly Input[]; values: Form; errors: Record<string, string>; choices: Record<string, Choice[]>; submit: string; creating: boolean }) {
  const { errors } = props;
  return (
    <form class="stack" method="post" action={props.action} novalidate>
      <Csrf token={props.csrf} />
      <FormError message={errors.form} />
      {Object.keys(errors).length > 0 && !errors.form && (
        <p class="err" role="alert">
          The {props.screen.one} was not saved: see the messages beside the fields.
        </p>
      )}
      {props.inputs.map((input) => (
        <Control screen={props.screen} input={input} value={props.values} errors={errors} choices={props.choices[input.name] ?? []} creating={props.creating} />
      ))}
      <div class="actions">
        <button type="submit">{props.submit}</button>
        <a href={`/app/${props.screen.path}`}>Cancel</a>
      </div>
    </form>
  );
}
