# seatmap en español: páginas de compra, correo y mensajes.
# Los nombres de espectáculos, zonas y tarifas son los del organizador:
# llegan como $argumentos y nunca se traducen.

skip-to-content = Ir al contenido
nav-my-orders = Mis pedidos
nav-language = Idioma
all-events = Todos los espectáculos
back-to-map = Volver al plano de la sala
events-title = Espectáculos
events-none = Todavía no hay espectáculos a la venta.
sold-out = Agotado
standing-left = Quedan { $left } de { $total } entradas de pie
price-from-amount = desde { $price }
sale-on-sale-at = A la venta el { $at }.
sale-not-yet = Todavía no está a la venta.
sale-draft = Un borrador: solo el personal lo ve hasta que se publique.
sale-closed = La venta de este espectáculo ha terminado.
sale-started = Este espectáculo ha empezado; ya no se venden entradas.
sale-cancelled = Este espectáculo está cancelado. Los pedidos hechos se conservan y se reembolsarán.
sale-label-on-sale = A la venta
sale-label-not-yet = Aún no a la venta
sale-label-draft = Borrador
sale-label-closed = Venta cerrada
sale-label-started = Empezado
sale-label-cancelled = Cancelado
seats-left = Quedan { $left } de { $total } asientos
map-heading = Plano de la sala
map-all-sections = Todas las zonas
map-section = Zona { $name }
map-section-part = Filas { $first }–{ $last }
map-section-part-row = Fila { $row }
map-section-parts = Partes de esta zona
map-stage = Escenario
map-tap-to-zoom = Toca el plano para acercar y luego toca un asiento.
map-choose-section = Elija una zona
zoom-out = Alejar
zoom-fit = Ajustar a la pantalla
zoom-fit-short = Ajustar
zoom-in = Acercar
prices = Precios
prices-to-show = Precios que mostrar
price-from = De
price-to = a
show = Mostrar
show-in-full = Destacar
show-every-seat = todos los asientos
legend = Leyenda
list-link = Lista de asientos libres
list-link-hint = (las mismas acciones, sin el plano)
list-title = { $event }: lista de asientos
list-heading = { $event }: asientos libres
list-choose-section = Elija una zona
list-none = No hay asientos libres.
list-row = Fila { $row }
seat-name = { $section }, fila { $row }, asiento { $seat }
seat-state-available = libre
seat-state-held = reservado por otra persona
seat-state-mine = reservado por usted
seat-state-sold = vendido
seat-state-blocked = no está a la venta
flag-wheelchair = espacio para silla de ruedas
flag-companion = asiento de acompañante
flag-restricted-view = visibilidad reducida
flag-restricted-view-because = visibilidad reducida ({ $why })
flag-aisle = asiento de pasillo
flag-step-free = acceso sin escalones
flag-hearing-loop = bucle magnético
flag-lift-up-armrest = reposabrazos abatible
flag-extra-legroom = más espacio para las piernas
flag-clear-view = visibilidad completa
confirm-wheelchair-space = Este es un espacio para silla de ruedas. ¿Es para una persona en silla de ruedas?
confirm-companion-seat = Este es un asiento de acompañante, junto a un espacio para silla de ruedas. ¿Es para quien acompaña a una persona en silla de ruedas?
best-title = Mejores asientos
best-count = Número de asientos
best-section = Zona
best-any-section = Cualquier zona
best-price = Precio
best-any-price = Cualquier precio
best-wheelchair = En silla de ruedas
best-wheelchair-none = Nadie
best-wheelchair-hint = Cada persona en silla de ruedas tiene su espacio, con el resto del grupo al lado.
best-apart = Los asientos pueden estar separados
best-clear-view = Sin visibilidad reducida
best-find = Buscar asientos
best-found = Encontrados: { $seats } ({ $total }).
best-swapped = Liberados: { $released }; ahora reservados: { $seats } ({ $total }).
best-none-together = No hay asientos juntos para un grupo de ese tamaño. Marque «Los asientos pueden estar separados» para obtener los mejores aunque no estén juntos, o pruebe otra zona u otro precio.
best-undo = Deshacer: recuperar mis asientos anteriores
seats-one = asiento { $seat }
seats-run = asientos { $first }–{ $last }
seats-place = { $section }, fila { $row }, { $seats }
seats-together = { $count ->
    [one] 1 asiento en { $place }
   *[other] { $count } asientos juntos en { $place }
}
seats-apart = { $count ->
    [one] 1 asiento: { $places }
   *[other] { $count } asientos: { $places }
}
notice-holding = Reservado: { $seat } ({ $price }).
notice-taken = Lo sentimos, otra persona acaba de coger { $seat }. Elija otro asiento.
notice-over-limit = Puede reservar como máximo { $max } asientos a la vez. Libere uno para elegir { $seat }.
notice-released-seat = { $seat } liberado; vuelve a estar a la venta.
notice-not-in-hold = { $seat } ya no está en su reserva.
notice-released-seats = { $count ->
    [one] 1 asiento liberado; vuelve a estar a la venta.
   *[other] { $count } asientos liberados; vuelven a estar a la venta.
}
notice-no-hold = No tiene asientos reservados.
inspect-available = { $seat } vuelve a estar libre. Selecciónelo para reservarlo.
inspect-mine = { $seat } está en su reserva.
inspect-held = { $seat } está reservado por otra persona. Si no lo compra, vuelve a la venta cuando caduque su reserva.
inspect-sold = { $seat } está vendido.
inspect-blocked = { $seat } no está a la venta.
notice-holding-ga = { $count ->
    [one] 1 entrada de pie reservada.
   *[other] { $count } entradas de pie reservadas.
}
notice-released-ga = { $count ->
    [one] 1 entrada de pie liberada; vuelve a estar a la venta.
   *[other] { $count } entradas de pie liberadas; vuelven a estar a la venta.
}
notice-held-until = Sus asientos están reservados hasta el { $until }.
ga-meta = De pie · { $tier } { $price } por entrada
ga-tickets = Entradas
ga-hold = Reservar entradas
ga-left = Quedan { $count }
ga-mine = Tiene { $count }
hold-heading = Sus asientos
hold-held-for = Reservados durante
hold-until = (hasta las { $clock })
hold-extend = ¿Necesita más tiempo? Añada { $minutes } minutos
hold-release = Liberar
hold-release-seat = Liberar { $seat }
hold-release-all = Liberar todo
hold-release-all-confirm = ¿Liberar todos sus asientos? Vuelven a la venta al instante.
hold-total = Total
hold-ticket-type = Tipo de entrada para { $seat }
hold-ga-place = { $area }, plaza { $n }
hold-promo-code = Código promocional (opcional)
selection-summary = { $tickets ->
    [0] { $seats ->
        [one] 1 asiento
       *[other] { $seats } asientos
    }
   *[other] { $seats ->
        [0] { $tickets ->
            [one] 1 entrada
           *[other] { $tickets } entradas
        }
        [one] 1 asiento y { $tickets ->
            [one] 1 entrada
           *[other] { $tickets } entradas
        }
       *[other] { $seats } asientos y { $tickets ->
            [one] 1 entrada
           *[other] { $tickets } entradas
        }
    }
}
buy-heading-now = Comprar
buy-heading-checkout = Pago
buy-heading-reserve = Reservar
buy-label-now = Comprar por { $total }
buy-label-online = Pagar { $total }
buy-label-reserve = Reservar y pagar { $total } en taquilla
hold-left = restantes
hold-checkout = Pagar
hold-name = Nombre
hold-email = Correo electrónico
hold-released-by-box-office = La taquilla ha anulado su reserva; sus asientos vuelven a estar a la venta. Puede elegir otros.
hold-none = No tiene asientos. Elija un asiento libre en el plano: se le reserva { $minutes } minutos mientras compra.
hold-awaiting-payment = Tus asientos esperan tu pago:
hold-finish-paying = Terminar el pago
hold-expired-announce = Su reserva ha caducado. Sus asientos vuelven a estar a la venta.
hold-30s-announce = Quedan 30 segundos de reserva.
hold-2min-announce = Quedan 2 minutos de reserva.
hold-more-time-announce = Puede pedir más tiempo.
hold-expired-pick-again = Su reserva ha caducado: elija de nuevo.
order-title = Sus entradas: { $event }
order-thanks = Gracias, { $name }.
order-for = { $name }, tu pedido para
order-places = Tus asientos
order-cancelled = Este espectáculo se ha cancelado. Su pedido se conserva y se reembolsará.
order-find-again = encuentra este pedido de nuevo en este navegador.
order-number = Número de pedido
order-heading-order = Su pedido
order-heading-tickets = Sus entradas
order-tickets-shown = Entradas { $range } de { $count } en esta página; el PDF las tiene todas.
order-pages = Páginas de entradas
order-page-previous = Entradas anteriores
order-page-next = Más entradas
order-valid-tickets = { $count ->
    [one] 1 entrada válida
   *[other] { $count } entradas válidas
}
mail-status-sent = Sus entradas se enviaron a { $email } a las { $at }.
mail-status-queued = Sus entradas se enviarán enseguida a { $email }. Mientras tanto, están en esta página.
mail-status-retrying = Aún no hemos podido escribir a { $email } y seguimos intentándolo. Sus entradas están en esta página.
mail-status-failed = No hemos podido escribir a { $email } y hemos dejado de intentarlo. Sus entradas están en esta página: guarde su dirección o imprímalas.
mail-status-none = No se envió ningún correo para este pedido; sus entradas están en esta página.
ticket-refunded = Reembolsada el { $at }
ticket-released = Devuelta a la venta el { $at }
ticket-release-to-sale = ¿No puede venir? Devolver esta noche a la venta
ticket-admitted = Entró el { $at } por { $gate }
ticket-valid = Válida: muestre este código en la entrada
ga-place = { $area } (de pie)
order-total = total { $total }
order-print = Imprimir entradas
ticket-title = Entrada: { $event }
ticket-for = para { $name }
ticket-code = Código
ticket-open-alone = Abrir solo esta entrada
ticket-print = Imprimir esta entrada
mine-title = Mis pedidos
mine-none = No se ha comprado nada en este navegador. Un pedido comprado en otro sitio se abre con el enlace de su correo.
mine-event = Espectáculo
mine-when = Cuándo
mine-tickets = Entradas
mine-total = Total
mine-bought = Comprado
mail-subject = Sus entradas para { $event }
mail-greeting = Hola, { $name }:
mail-thanks = Gracias por su pedido. Sus entradas para { $event } están abajo.
mail-ticket-code = Código de la entrada: { $code }
mail-ticket-link = Entrada con su código QR: { $url }
mail-order = Pedido { $order }
mail-all-tickets = Todas sus entradas, listas para imprimir:
mail-link-until = El enlace funciona hasta el { $until }. Quien lo tenga ve sus entradas,
    así que no lo comparta.
mail-door = En la entrada, muestre el código QR en el móvil o en papel. Cada código
    da acceso a una persona una vez.
error-seats-unavailable = Otra persona acaba de coger algunos de estos asientos.
error-hold-limit = Una reserva puede tener como máximo { $max } asientos.
error-hold-expired = Esta reserva ha caducado; sus asientos vuelven a estar a la venta.
error-timeout = La petición tardó demasiado en llegar. Inténtelo de nuevo.
error-no-event = Espectáculo no encontrado.
error-no-page = Página no encontrada.
error-no-hold = Reserva no encontrada.
error-no-order = Pedido no encontrado.
error-email = Escriba un correo válido, como nombre@example.com.
where-section = en { $section }
where-tier = con la tarifa { $tier }
error-not-enough-seats = { $free ->
    [one] Solo queda 1 asiento libre
   *[other] Solo quedan { $free } asientos libres
}{ $where }; se pidieron { $asked }.
error-not-enough-together = No hay { $asked } asientos juntos{ $where }, pero hay { $free } libres por separado. Pida de nuevo con "together": false para obtener los { $asked } mejores aunque estén separados.
error-kept-seats = { $count ->
    [one] 1 espacio para silla de ruedas o asiento de acompañante más se guarda para personas en silla de ruedas y sus acompañantes.
   *[other] { $count } espacios para silla de ruedas y asientos de acompañante más se guardan para personas en silla de ruedas y sus acompañantes.
}
error-no-wheelchair-space = No hay ningún espacio para silla de ruedas libre{ $where }.
error-spaces-elsewhere = Espacios para silla de ruedas libres en otras zonas: { $sections }.
error-box-office-helps = La taquilla también puede ayudarle.
error-few-wheelchair-spaces = { $free ->
    [one] Solo queda 1 espacio para silla de ruedas libre
   *[other] Solo quedan { $free } espacios para silla de ruedas libres
}{ $where }; se pidieron { $asked }.
error-wheelchair-not-together = { $free ->
    [one] Hay 1 espacio para silla de ruedas libre
   *[other] Hay { $free } espacios para silla de ruedas libres
}{ $where }, pero ninguno tiene { $others ->
    [one] 1 asiento libre
   *[other] { $others } asientos libres
} al lado. Pida de nuevo con "together": false («Los asientos pueden estar separados») para { $spaces ->
    [one] 1 espacio
   *[other] { $spaces } espacios
} y los mejores asientos cercanos.

payment-received = Pago recibido
payment-paid-box-office = { $amount } pagados en taquilla. Sus entradas están abajo.
payment-paid-card = { $amount } pagados con tarjeta. Sus entradas están abajo.
payment-waiting = Esperando la confirmación del pago
payment-waiting-text = Esta página se actualiza en cuanto se confirme el pago con tarjeta de { $amount }; suele tardar unos segundos. Sus asientos siguen siendo suyos mientras tanto.
payment-not-made = Pago no realizado
payment-held = Sus asientos le esperan para el pago
payment-pay-by = Pague { $amount } antes del { $by } para recibir sus entradas; después, los asientos vuelven a la venta.
payment-left-unpaid = Salió de la página de pago sin pagar. Pague { $amount } antes del { $by } para recibir sus entradas; después, los asientos vuelven a la venta.
payment-reserved = Reservado: pague en taquilla
payment-reserved-text = Pague { $amount } en taquilla antes del { $by }, con el número de pedido { $order }. Sus entradas se emiten al pagar; pasado ese plazo, los asientos vuelven a la venta.
payment-lapsed = No se pagó a tiempo
payment-lapsed-text = Este pedido no se pagó antes del { $by }, así que sus asientos volvieron a la venta. No se cobró nada.
payment-refunding = Se está reembolsando su pago
payment-late-refund-sent = Su pago de { $amount } llegó cuando la reserva de sus asientos ya había caducado, y otra persona los había comprado. No nos quedamos con dinero por asientos que no pudimos darle: el reembolso ya se ha enviado a su tarjeta; los bancos suelen mostrarlo en 5 a 10 días.
payment-late-refunding = Su pago de { $amount } llegó cuando la reserva de sus asientos ya había caducado, y otra persona los había comprado. No nos quedamos con dinero por asientos que no pudimos darle: se está reembolsando todo el importe a su tarjeta.
mail-refund-subject = Se está reembolsando su pago para { $event }
mail-refund-text = Su pago de { $amount } para { $event } ({ $starts }) llegó cuando la reserva
    de sus asientos ya había caducado, y para entonces otra persona los había
    comprado. No nos quedamos con dinero por asientos que no pudimos darle: se
    reembolsan los { $amount } a la tarjeta con la que pagó. Los bancos suelen
    mostrar un reembolso en 5 a 10 días.
mail-refund-sorry = Lo sentimos. Si aún quiere ir, el plano de la sala muestra lo que está libre ahora.
mail-refunded-subject = Tu reembolso para { $event }
mail-refunded-text = Hemos reembolsado { $amount } por estas entradas para { $event } ({ $starts }). Quedan anuladas y ya no dan acceso:
mail-refunded-online = El dinero vuelve a la tarjeta con la que pagaste. Los bancos suelen mostrar un reembolso en 5 a 10 días.
mail-refunded-cash = El dinero se te devolvió en efectivo en la taquilla.
mail-refunded-card = El dinero se devolvió a tu tarjeta en la taquilla. Los bancos suelen mostrar un reembolso en 5 a 10 días.
mail-refunded-box-office = No se cobró nada en línea por estas entradas: la taquilla te devuelve el dinero como pagaste.
mail-refunded-nothing = No se pagó nada por estas entradas, así que no hay nada que devolver.
mail-refunded-still-valid = { $count ->
    [one] Tu otra entrada sigue siendo válida; tu pedido la muestra:
   *[other] Tus otras { $count } entradas siguen siendo válidas; tu pedido las muestra:
}
mail-refunded-all = No queda nada de este pedido.
error-buyer-name = Escriba su nombre: de 1 a { $max } caracteres, ninguno invisible.
error-count = Pida entre 1 y { $max } { $things ->
    [tickets] entradas
   *[seats] asientos
}.
error-wheelchair-users = Diga cuántas de las { $count } personas del grupo van en silla de ruedas: de 0 a { $count }.
error-already-purchased = Esta reserva ya se ha comprado.
error-hold-released = Esta reserva se anuló; sus asientos vuelven a estar a la venta.
error-too-many-requests = Demasiadas peticiones de reserva. Espere un momento y vuelva a intentarlo.
error-holds-from-network = Hay demasiados asientos reservados desde su red ({ $live } reservas). Compre o libere algunos, o espere a que caduque una reserva.
error-live-streams = Hay demasiados planos en directo abiertos desde su red. Cierre algunos y recargue.
error-waitlist-entries = Esta dirección ya tiene { $max } plazas en esta lista de espera, el máximo permitido.
error-proof-of-work-needed = Muchas personas se han unido a esta cola desde su red en el último minuto, así que ahora unirse requiere resolver antes un pequeño cálculo ({ $bits } bits). La página lo resuelve sola; con la API, pida un desafío y envíe su respuesta.
error-house-share = Los compradores de su red ya reservan { $max } asientos para este evento, el máximo para una red mientras la sala de espera está abierta. Compre o libere algunos, o espere a que caduque una reserva.
error-no-section = Este espectáculo no tiene esa zona.
error-no-seat-in-hold = Ese asiento no está en la reserva.
error-no-seat-in-event = Ese asiento no existe en este espectáculo.
error-no-ticket = No existe esa entrada.
error-no-seats = No hay asiento { $ids } en este espectáculo.
error-no-areas = No hay zona de pie { $ids } en este espectáculo.
error-already-extended = Esta reserva ya tuvo su tiempo extra.
error-too-early-to-extend = Puede pedir más tiempo en los últimos { $minutes } minutos de su reserva.
error-not-enough-capacity = { $left ->
    [0] { $area } está agotado.
    [one] Solo queda 1 plaza en { $area }; pidió { $asked }.
   *[other] Solo quedan { $left } plazas en { $area }; pidió { $asked }.
}
error-hold-being-paid = Estos asientos están en proceso de pago: abra su pedido para pagarlos.

## The waitlist
error-waitlist-first = Estas butacas son primero para la lista de espera: se ofrecen a quienes esperan en cuanto quedan libres. Apúntese para que le ofrezcan butacas.
error-not-sold-out = { $free ->
    [one] Aún queda a la venta una butaca que le serviría: elíjala en lugar de esperar.
   *[other] Aún quedan a la venta { $free } butacas que le servirían: elíjalas en lugar de esperar.
}
error-no-waitlist-entry = Esa inscripción en la lista de espera no existe.
error-cannot-rejoin = Se puede volver a apuntarse una sola vez, cuando una oferta ha caducado.
error-offer-not-taken = Este navegador ya reserva butacas para este evento: cómprelas o libérelas y vuelva a abrir el enlace de la oferta.
waitlist-title = Lista de espera: { $event }
waitlist-party = { $count ->
    [one] Una persona
   *[other] Un grupo de { $count }
}
waitlist-unconfirmed = Tu plaza aún no está confirmada: abre el enlace del correo que te enviamos y pulsa «Confirmar mi plaza». Hasta entonces no recibes ninguna oferta.
waitlist-confirm = Confirmar mi plaza
waitlist-confirm-text = Confirma que esta dirección de correo es tuya para ocupar tu plaza en la lista de espera. Solo las plazas confirmadas reciben ofertas.
waitlist-confirmed = Tu plaza está confirmada.
waitlist-waiting = Es el número { $position } de la lista de espera. Le escribimos en cuanto queden butacas libres para usted.
waitlist-offered = Ahora mismo le guardamos butacas.
waitlist-take-offer = Ver y comprar sus butacas
waitlist-offer-until = Son suyas hasta { $until }; después pasan al siguiente grupo.
waitlist-accepted = Ha comprado las butacas que se le ofrecieron.
waitlist-lapsed = Su oferta caducó y sus butacas pasaron al siguiente grupo.
waitlist-left = Ya no está en esta lista de espera.
waitlist-leave = Salir de la lista de espera
waitlist-rejoin = Volver a apuntarse al final
waitlist-back = Volver al evento
waitlist-join-heading = Agotado: apúntese a la lista de espera
waitlist-join-text = Las butacas que quedan libres van primero a la lista de espera, por orden de inscripción. Le escribimos una oferta y le guardamos las butacas un tiempo.
waitlist-party-size = Butacas
waitlist-together = Juntas
waitlist-email = Correo electrónico
waitlist-join = Apuntarse
waitlist-mail-subject = Lista de espera: { $event }
waitlist-mail-confirm = Pediste una plaza en la lista de espera de { $event } ({ $starts }). Confirma tu dirección de correo para ocuparla: solo las plazas confirmadas reciben ofertas. Si no la pediste, ignora este correo.
waitlist-mail-joined = Está en la lista de espera de { $event } ({ $starts }). Cuando queden butacas libres para usted, se las guardamos y le escribimos. Su puesto, y cómo salir de la lista:
waitlist-mail-offer-subject = Butacas para usted: { $event }
waitlist-mail-offer = Han quedado libres butacas para { $event } ({ $starts }) y se las guardamos hasta { $until }. Abra este enlace para verlas y comprarlas:
waitlist-mail-lapsed-subject = Su oferta caducó: { $event }
waitlist-mail-lapsed = Su oferta para { $event } caducó y sus butacas pasaron al siguiente grupo. Puede volver a apuntarse una vez, al final:
error-already-waiting = Ya está en esta lista de espera (este navegador o esta dirección de correo).

# Receipts (issue 47)
receipt-tickets = Entradas
receipt-discount = Descuento { $code }
receipt-fees = Gastos de gestión
receipt-tax-included = IVA incluido { $rate } %
receipt-tax-added = Impuesto { $rate } %
receipt-total = Total
receipt-refunded = Reembolsado
receipt-heading = Recibo
notice-code-applied = Código { $code } aplicado: el total muestra el descuento.
notice-code-removed = Código quitado.
hold-code-applied = Código { $code } aplicado.
hold-code-remove = Quitar
hold-code-apply = Aplicar

## Pasar una entrada a otra persona, y la entrada como archivo (incidencia 49)
error-ticket-used = Esta entrada ya se validó en la puerta: no se puede pasar a otra persona.
error-ticket-transferred = Esta entrada se pasó a otra persona: su código antiguo ya no sirve.
error-transfers-not-allowed = Las entradas de este evento no se pueden pasar a otra persona.
error-transfers-closed = Las entradas de este evento se podían pasar hasta el { $at }.
error-transfer-limit = Esta entrada se ha pasado tantas veces como permite este evento ({ $limit } veces).
error-transfer-cancelled = Este evento está cancelado: sus entradas no se pueden pasar a otra persona.
error-language = Elija uno de los idiomas ofrecidos.
ticket-passed-on = Enviada a { $name } ({ $email }): su nuevo código es ahora la entrada.
order-pdf = Descargar todas en PDF
ticket-pdf = Descargar PDF
ticket-apple-wallet = Añadir a Apple Wallet
ticket-google-wallet = Añadir a Google Wallet
transfer-heading = Enviar a alguien
transfer-explain = La entrada le llega por correo con un código nuevo. Este código deja de servir, también en la puerta.
transfer-name = Su nombre
transfer-email = Su correo electrónico
transfer-lang = Su idioma
transfer-send = Enviar la entrada
passed-on-title = Esta entrada se pasó a otra persona
passed-on-text = Se envió a { $name } el { $at }. Este código ya no permite entrar: el nuevo, sí.
ticket-file-section = Sección
ticket-file-row = Fila
ticket-file-seat = Asiento
ticket-file-area = Zona
ticket-file-event = Evento
ticket-file-date = Fecha
ticket-file-venue = Lugar
ticket-file-type = Entrada
ticket-file-price = Precio
ticket-file-holder = Nombre
ticket-file-order = Pedido
ticket-file-door-note = Muestre este código en la puerta. Cada entrada vale para un acceso.
mail-ticket-pdf = La entrada en PDF: { $url }
mail-tickets-pdf = Todas en un PDF: { $url }
mail-transferred-subject = { $from } le ha enviado una entrada para { $event }
mail-transferred-text = { $from } le ha enviado una entrada para { $event }. Ahora es suya:
mail-transferred-own = Este código es solo suyo: el que tenía { $from } ya no sirve.
mail-transfer-receipt-subject = Su entrada para { $event } se ha enviado
mail-transfer-receipt-text = Envió su entrada para { $event } ({ $place }) a { $name } ({ $email }) el { $at }.
mail-transfer-receipt-old-code = Su código antiguo ya no permite entrar; esa persona ha recibido uno nuevo.
mail-transfer-receipt-not-you = Si no fue usted, contacte con la taquilla cuanto antes.
mail-ticket-passed-on = { $place } ({ $tier }): enviada a { $name }; su nuevo código es ahora la entrada
seasons-title = Abonos
season-events = { $count } eventos, la misma butaca en cada uno
series-dates = { $count } fechas
season-not-yet = A la venta desde el { $at }.
season-place-held = Reservada para usted en cada noche del abono.
season-place-released = Liberada, en cada noche.
season-best-found = { $count } butacas juntas, reservadas en cada noche.
season-released = Sus butacas vuelven a estar a la venta.
season-night-released = Esta noche vuelve a la venta. Sus otras noches no cambian.
season-night-released-credit = Esta noche vuelve a la venta; recibirá su precio como crédito cuando se venda. Sus otras noches no cambian.
season-renewed = Renovado: sus butacas son suyas para la nueva temporada.
season-given-up = Renunciado: sus butacas vuelven a la venta.
season-nights = Las noches
season-choose = Elija { $count } noches
season-choose-show = Ver butacas libres para estas noches
season-your-places = Sus butacas
season-pick-hint = Elija una butaca: se le reserva en todas las noches a la vez.
season-total = Total { $total }
season-buy = Comprar el abono
season-release-all = Liberar todo
renewal-title = Renovar sus butacas: { $season }
renewal-for = Para { $name }
renewal-until = Reservadas para usted hasta el { $until }. Después vuelven a la venta.
renewal-renew = Renovar
renewal-give-up = Renunciar a mis butacas
renewal-over = Esta renovación ha terminado: las butacas vuelven a estar a la venta.
renewal-see-order = Ver sus entradas
renewal-mail = Sus butacas están reservadas para usted en { $season } hasta el { $until }. Renuévelas, o renuncie a ellas, en el enlace de abajo; si no hace nada, vuelven a la venta después.
renewal-mail-subject = Renovar sus butacas: { $season }
queue-title = Sala de espera: { $event }
queue-intro = Esta venta tiene sala de espera, para que todos tengan su turno y el plano siga rápido. Cuando sea su turno podrá elegir butacas.
queue-open-now = La venta está abierta: los compradores entran por turnos.
queue-opens-at = La venta abre a las { $time }.
queue-fair = Quien se une antes de la apertura recibe un puesto en orden aleatorio: no sirve de nada llegar antes ni recargar.
queue-position = Su puesto en la fila
queue-ahead = Personas delante
queue-wait = Espera estimada
queue-keep-open = Mantenga esta página abierta: pasará sola al plano cuando sea su turno.
queue-expired = Su tiempo de compra ha terminado. Únase de nuevo para un puesto nuevo al final de la fila.
queue-join = Unirse a la fila
queue-pow-needs-script = Su navegador resuelve un pequeño acertijo que mantiene a los bots fuera de la fila…
queue-pow-ready = Listo.
queue-wait-seconds = { $count ->
    [one] aproximadamente 1 segundo
   *[other] aproximadamente { $count } segundos
}
queue-wait-minutes = { $count ->
    [one] aproximadamente 1 minuto
   *[other] aproximadamente { $count } minutos
}
queue-wait-hours = { $count ->
    [one] aproximadamente 1 hora
   *[other] aproximadamente { $count } horas
}
